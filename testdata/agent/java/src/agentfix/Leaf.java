package agentfix;

/** The distinctive many-instance class: Factory.makeLeaves() makes 1000 live ones. */
final class Leaf {
    final int index;

    Leaf(int index) {
        this.index = index;
    }
}
