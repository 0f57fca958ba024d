package agentfix;

/** Allocates the hierarchy at three sites: 100 Base, 200 Mid, 500 Sub, all kept in NODES. */
final class Tree {
    static final int BASES = 100;
    static final int MIDS = 200;
    static final int SUBS = 500;

    /** Every Base, Mid and Sub, in that order (length 800, no nulls). */
    static final Base[] NODES = new Base[BASES + MIDS + SUBS];

    private Tree() {
    }

    static void makeBases() {
        for (int i = 0; i < BASES; i++) {
            NODES[i] = new Base(i);
        }
    }

    static void makeMids() {
        for (int i = 0; i < MIDS; i++) {
            NODES[BASES + i] = new Mid(i);
        }
    }

    static void makeSubs() {
        for (int i = 0; i < SUBS; i++) {
            NODES[BASES + MIDS + i] = new Sub(i);
        }
    }
}
