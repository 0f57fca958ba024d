package agentfix;

/** Arrays with known lengths and contents. */
final class ArrayHolder {
    /** Length 10: Elem(i) at 0, 1, 3 and 6, null elsewhere (the last four are null). */
    static final Elem[] SLOTS = new Elem[10];

    /** Length 37: i * i. */
    static final int[] SQUARES = new int[37];

    /** Length 3: "alpha", "beta", "gamma" (literals). */
    static final String[] WORDS = {"alpha", "beta", "gamma"};

    private ArrayHolder() {
    }

    static void fill() {
        SLOTS[0] = new Elem(0);
        SLOTS[1] = new Elem(1);
        SLOTS[3] = new Elem(3);
        SLOTS[6] = new Elem(6);
        for (int i = 0; i < SQUARES.length; i++) {
            SQUARES[i] = i * i;
        }
    }
}
