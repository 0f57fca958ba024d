package agentfix;

import java.util.ArrayList;

/**
 * Allocation sites with known counts: makeLeaves() allocates 1000 Leaf and
 * keeps them all, makeTemporaryLeaves() allocates 250 Leaf and keeps none,
 * makeTwigs() allocates 300 Twig and keeps 100 (indexes 0, 3, 6, ...),
 * makeLitter() allocates 50 Litter and keeps none.
 */
final class Factory {
    static final int LIVE_LEAVES = 1000;
    static final int TEMPORARY_LEAVES = 250;
    static final int TWIGS = 300;
    static final int KEPT_TWIGS = 100;
    static final int LITTER = 50;

    /** Every live Leaf, in creation order (capacity and size 1000). */
    static final ArrayList<Leaf> LEAVES = new ArrayList<>(LIVE_LEAVES);

    /** The kept Twig objects (length 100, no nulls). */
    static final Twig[] TWIG_KEEP = new Twig[KEPT_TWIGS];

    private Factory() {
    }

    static void makeLeaves() {
        for (int i = 0; i < LIVE_LEAVES; i++) {
            LEAVES.add(new Leaf(i));
        }
    }

    /** Allocates 250 Leaf objects that are garbage when it returns; returns their index sum. */
    static int makeTemporaryLeaves() {
        int sum = 0;
        for (int i = 0; i < TEMPORARY_LEAVES; i++) {
            Leaf temporary = new Leaf(-1 - i);
            sum += temporary.index;
        }
        return sum;
    }

    static void makeTwigs() {
        for (int i = 0; i < TWIGS; i++) {
            Twig twig = new Twig(i);
            if (i % 3 == 0) {
                TWIG_KEEP[i / 3] = twig;
            }
        }
    }

    /** Allocates 50 Litter objects that are garbage when it returns; returns their index sum. */
    static int makeLitter() {
        int sum = 0;
        for (int i = 0; i < LITTER; i++) {
            Litter litter = new Litter(i);
            sum += litter.index;
        }
        return sum;
    }
}
