package agentfix;

/**
 * byte[] of known sizes at two sites: 16 of 16384 bytes (makeLarge), 8 of
 * 1024 bytes (makeSmall). BLOBS retains about a fifth of the heap: the one
 * object leak suspect.
 */
final class Buffers {
    static final int LARGE = 16;
    static final int LARGE_SIZE = 16384;
    static final int SMALL = 8;
    static final int SMALL_SIZE = 1024;

    /** The 16 large buffers first, then the 8 small ones (length 24, no nulls). */
    static final byte[][] BLOBS = new byte[LARGE + SMALL][];

    private Buffers() {
    }

    static void makeLarge() {
        for (int i = 0; i < LARGE; i++) {
            BLOBS[i] = new byte[LARGE_SIZE];
        }
    }

    static void makeSmall() {
        for (int i = 0; i < SMALL; i++) {
            BLOBS[LARGE + i] = new byte[SMALL_SIZE];
        }
    }
}
