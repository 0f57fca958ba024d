package threads;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;

/**
 * Shared plumbing of the thread-dump fixture programs: starting named
 * threads, making every thread of a cycle hold its first lock before any of
 * them asks for its second, waiting for the JVM to see the deadlock, and
 * announcing READY on stdout so that gen.sh knows when to dump.
 */
final class Fixture {
    private Fixture() {}

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

    /**
     * Waits until the JVM's own deadlock detector reports exactly
     * {@code threads} deadlocked threads.
     */
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

    /** Waits until every thread is in its expected state. */
    static void awaitStates(Thread[] threads, Thread.State[] states) {
        for (int i = 0; i < 6000; i++) {
            boolean all = true;
            for (int k = 0; k < threads.length; k++) {
                all &= threads[k].getState() == states[k];
            }
            if (all) {
                return;
            }
            sleep(10);
        }
        throw new IllegalStateException("threads did not reach their states after 60 s");
    }

    /** Prints READY and keeps the main thread alive. */
    static void ready() {
        System.out.println("READY");
        System.out.flush();
    }

    /** Keeps the process alive until gen.sh kills it. */
    static void parkForever() {
        sleep(Long.MAX_VALUE);
    }
}
