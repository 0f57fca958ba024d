package agentfix;

/** Allocated 50 times by Factory.makeLitter() after the last GC and never referenced. */
final class Litter {
    final int index;

    Litter(int index) {
        this.index = index;
    }
}
