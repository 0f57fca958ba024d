package agentfix;

/** Allocated 300 times by Factory.makeTwigs(), which keeps every third one. */
final class Twig {
    final int index;

    Twig(int index) {
        this.index = index;
    }
}
