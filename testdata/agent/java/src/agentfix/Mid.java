package agentfix;

/** Middle of the hierarchy: a Base with one more field. */
class Mid extends Base {
    final int level;

    Mid(int id) {
        super(id);
        this.level = 1;
    }
}
