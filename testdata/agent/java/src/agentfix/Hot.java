package agentfix;

/**
 * CPU fixture. Thread "hot-worker" runs ROUNDS rounds of spin(SPIN) and
 * light(LIGHT): the same loop body, 9 times more iterations in spin(), so
 * spin() is the hot method with about 90% of the worker's time. Then it
 * prints READY and blocks in rest() for good; main, which only polls for the
 * go file (args[0]) with Thread.sleep, ends the JVM once gen.sh creates it.
 *
 * spin() and light() are called exactly ROUNDS times each, from one call
 * site each (Hot.work).
 */
public final class Hot implements Runnable {
    static final int ROUNDS = 4000;
    static final int SPIN = 90_000;
    static final int LIGHT = 10_000;

    static volatile long sink;

    private Hot() {
    }

    public static void main(String[] args) {
        Control.start("hot-worker", new Hot());
        Control.exitOnGoFile(args[0]);
    }

    @Override
    public void run() {
        long start = System.nanoTime();
        work();
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("rounds " + ROUNDS + ", spin " + SPIN + ", light " + LIGHT
                + ", work() took " + millis + " ms, sink " + sink);
        Control.ready();
        rest();
    }

    static void work() {
        for (int r = 0; r < ROUNDS; r++) {
            sink += spin(SPIN);
            sink += light(LIGHT);
        }
    }

    /** The hot method: its loop body is where the worker spends most of its time. */
    static long spin(int n) {
        long x = 1;
        for (int i = 0; i < n; i++) {
            x = x * 31 + i;
        }
        return x;
    }

    /** The same loop body as spin(), a ninth of the iterations. */
    static long light(int n) {
        long x = 1;
        for (int i = 0; i < n; i++) {
            x = x * 31 + i;
        }
        return x;
    }

    /** Blocks for good: the worker never returns from run(). */
    static void rest() {
        Control.parkForever();
    }
}
