package agentfix;

/** An element of ArrayHolder.SLOTS. */
final class Elem {
    final int slot;

    Elem(int slot) {
        this.slot = slot;
    }
}
