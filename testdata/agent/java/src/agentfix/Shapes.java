package agentfix;

/**
 * Heap and allocation-site fixture. Builds a heap with known contents at
 * known allocation sites (see the classes it calls), frees the start-up
 * garbage, the 250 temporary Leaf and the 200 dropped Twig objects with a
 * GC, then makes 50 Litter objects that are never referenced and the weakly
 * reachable WeakOnly (no GC is expected after them before the dump), prints
 * READY and sleeps. gen.sh then takes the JVM's histogram and thread dump,
 * sends SIGQUIT (the hprof agent writes its heap dump or its sites) and ends
 * the process.
 */
public final class Shapes {
    private Shapes() {
    }

    public static void main(String[] args) {
        Factory.makeLeaves();
        int temporarySum = Factory.makeTemporaryLeaves();
        Factory.makeTwigs();
        Tree.makeBases();
        Tree.makeMids();
        Tree.makeSubs();
        Catalog.fill();
        ArrayHolder.fill();
        Buffers.makeLarge();
        Buffers.makeSmall();

        Control.start(StackHolder.THREAD_NAME, new StackHolder());
        Control.await(StackHolder.ENTERED);

        // On JDK 17 the JVM posts a GC's ObjectFree events after the GC, from
        // its service thread, and the agent forgets the freed objects only
        // when the next GC finishes: the second GC makes it forget the first
        // GC's garbage, the pauses let the events and the agent's watcher run.
        System.gc();
        Control.sleep(500);
        System.gc();
        Control.sleep(500);

        int litterSum = Factory.makeLitter();
        WeakOnly.make();

        System.out.println("temporary leaves " + Factory.TEMPORARY_LEAVES + " (index sum " + temporarySum
                + "), litter " + Factory.LITTER + " (index sum " + litterSum + ")");
        Control.ready();
        Control.parkForever();
    }
}
