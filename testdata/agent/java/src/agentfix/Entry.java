package agentfix;

/** A value of Catalog.MAP. */
final class Entry {
    final int number;

    Entry(int number) {
        this.number = number;
    }
}
