package agentfix;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Shared plumbing of the agent fixture programs: named threads, latches and
 * sleeps that treat an interrupt as a fixture error, the READY line gen.sh
 * waits for, and the go file gen.sh creates once it has taken the JVM's own
 * histogram and thread dump.
 *
 * No lambdas or anonymous classes are used in this package: they would add
 * synthetic agentfix.* classes to the histograms and the agent's output.
 */
final class Control {
    private Control() {
    }

    /** Starts a daemon thread with the given name. */
    static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Waits on the latch, treating an interrupt as a fatal fixture error. */
    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sleeps, treating an interrupt as a fatal fixture error. */
    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the JVM's own deadlock detector reports exactly {@code threads} threads (at most 60 s). */
    static void awaitDeadlock(int threads) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 6000; i++) {
            long[] ids = mx.findDeadlockedThreads();
            if (ids != null && ids.length == threads) {
                return;
            }
            sleep(10);
        }
        throw new IllegalStateException("no deadlock of " + threads + " threads after 60 s");
    }

    /** Waits until every thread is in the given state (at most 60 s). */
    static void awaitState(Thread[] threads, Thread.State state) {
        for (int i = 0; i < 6000; i++) {
            boolean all = true;
            for (Thread t : threads) {
                all &= t.getState() == state;
            }
            if (all) {
                return;
            }
            sleep(10);
        }
        throw new IllegalStateException("threads not " + state + " after 60 s");
    }

    /** Prints READY on stdout: gen.sh takes the JVM's histogram and thread dump now. */
    static void ready() {
        System.out.println("READY");
        System.out.flush();
    }

    /** Waits until gen.sh creates the go file (at most 120 s). */
    static void awaitGoFile(String path) {
        Path go = Path.of(path);
        for (int i = 0; i < 12000; i++) {
            if (Files.exists(go)) {
                return;
            }
            sleep(10);
        }
        throw new IllegalStateException("no go file " + path + " after 120 s");
    }

    /**
     * Polls every 50 ms until gen.sh creates the go file (at most 120 s), then
     * ends the JVM with System.exit(0). It never returns, so the hprof agent's
     * cpu=times, which counts a method when it returns, never counts this
     * frame; Thread.sleep is native and not counted either.
     */
    static void exitOnGoFile(String path) {
        Path go = Path.of(path);
        for (int i = 0; i < 2400 && !Files.exists(go); i++) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        if (!Files.exists(go)) {
            throw new IllegalStateException("no go file " + path + " after 120 s");
        }
        System.exit(0);
    }

    /** Keeps the calling thread alive until gen.sh ends the process. */
    static void parkForever() {
        sleep(Long.MAX_VALUE);
    }
}
