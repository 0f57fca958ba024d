package agentfix;

/** Root of the three-level hierarchy Base, Mid extends Base, Sub extends Mid. */
class Base {
    final int id;

    Base(int id) {
        this.id = id;
    }
}
