package agentfix;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;

/**
 * Monitor contention fixture. In each of ROUNDS rounds, "mc-holder" enters
 * the LOCK monitor (a ContendedLock) and keeps it; the WAITERS threads
 * "mc-waiter-00".."mc-waiter-49" then try to enter it from
 * Contention.enter() and block; once all are BLOCKED, main lets the holder
 * keep the monitor HOLD_MILLIS more and then release it. So every waiter
 * contends for LOCK exactly ROUNDS times, and the total contended time is
 * more than WAITERS * ROUNDS * HOLD_MILLIS = 1,200,000 ms: above the 1000 s
 * the hprof agent needs to print a MONITOR TIME total. "mc-timed-waiter"
 * calls PING.wait(20) TIMED_WAITS times (never notified), for the agent's
 * WAIT/WAITED lines.
 *
 * In round 0, with every waiter BLOCKED, main prints READY and waits for
 * gen.sh's go file (args[0]). After the last round, with every fixture
 * thread parked for good (a thread exit could contend for its ThreadGroup),
 * main prints each thread's blocked and waited counts and times as the
 * JVM's ThreadMXBean reports them, then returns: the JVM exits and the
 * agent writes MONITOR TIME.
 */
public final class Contention implements Runnable {
    static final int WAITERS = 50;
    static final int ROUNDS = 2;
    static final long HOLD_MILLIS = 12_000;
    static final int TIMED_WAITS = 5;
    static final long TIMED_WAIT_MILLIS = 20;

    static final ContendedLock LOCK = new ContendedLock();
    static final Ping PING = new Ping();

    static final CountDownLatch[] HELD = latches(ROUNDS, 1);
    static final CountDownLatch[] GO = latches(ROUNDS, 1);
    static final CountDownLatch[] RELEASE = latches(ROUNDS, 1);
    static final CountDownLatch[] PASSED = latches(ROUNDS, WAITERS);
    static final CountDownLatch TIMED_DONE = new CountDownLatch(1);
    static final CountDownLatch NEVER = new CountDownLatch(1); // never counted down

    private final int role; // -2 holder, -1 timed waiter, else waiter index

    private Contention(int role) {
        this.role = role;
    }

    static CountDownLatch[] latches(int n, int count) {
        CountDownLatch[] l = new CountDownLatch[n];
        for (int i = 0; i < n; i++) {
            l[i] = new CountDownLatch(count);
        }
        return l;
    }

    public static void main(String[] args) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        mx.setThreadContentionMonitoringEnabled(true);

        Thread holder = Control.start("mc-holder", new Contention(-2));
        Thread timed = Control.start("mc-timed-waiter", new Contention(-1));
        Thread[] waiters = new Thread[WAITERS];
        for (int i = 0; i < WAITERS; i++) {
            waiters[i] = Control.start(String.format("mc-waiter-%02d", i), new Contention(i));
        }
        Control.await(TIMED_DONE);

        for (int r = 0; r < ROUNDS; r++) {
            Control.await(HELD[r]);
            GO[r].countDown();
            Control.awaitState(waiters, Thread.State.BLOCKED);
            if (r == 0) {
                Control.ready();
                Control.awaitGoFile(args[0]);
            }
            Control.sleep(HOLD_MILLIS);
            RELEASE[r].countDown();
            Control.await(PASSED[r]);
        }

        System.out.println("lock entries " + LOCK.entries + " (expected " + WAITERS * ROUNDS + ")");
        System.out.println("thread\tblockedCount\tblockedTimeMs\twaitedCount\twaitedTimeMs");
        long blockedCount = 0;
        long blockedTime = 0;
        Thread[] all = new Thread[WAITERS + 2];
        all[0] = holder;
        all[1] = timed;
        System.arraycopy(waiters, 0, all, 2, WAITERS);
        for (Thread t : all) {
            ThreadInfo info = mx.getThreadInfo(t.getId());
            System.out.println(info.getThreadName() + "\t" + info.getBlockedCount() + "\t"
                    + info.getBlockedTime() + "\t" + info.getWaitedCount() + "\t" + info.getWaitedTime());
            if (t != holder && t != timed) {
                blockedCount += info.getBlockedCount();
                blockedTime += info.getBlockedTime();
            }
        }
        System.out.println("waiters total\t" + blockedCount + "\t" + blockedTime);
    }

    @Override
    public void run() {
        if (role == -2) {
            hold();
        } else if (role == -1) {
            timedWaits();
        } else {
            contend();
        }
        Control.await(NEVER);
    }

    /**
     * mc-holder: keeps LOCK from HELD[r] until main counts RELEASE[r] down,
     * then lets every waiter pass before the next round.
     */
    static void hold() {
        for (int r = 0; r < ROUNDS; r++) {
            synchronized (LOCK) {
                HELD[r].countDown();
                Control.await(RELEASE[r]);
            }
            Control.await(PASSED[r]);
        }
    }

    /** mc-waiter-NN: enters LOCK once per round, after GO[r]. */
    static void contend() {
        for (int r = 0; r < ROUNDS; r++) {
            Control.await(GO[r]);
            enter();
            PASSED[r].countDown();
        }
    }

    static void enter() {
        synchronized (LOCK) {
            LOCK.entries++;
        }
    }

    /** mc-timed-waiter: TIMED_WAITS timed waits on PING, none notified. */
    static void timedWaits() {
        synchronized (PING) {
            for (int i = 0; i < TIMED_WAITS; i++) {
                try {
                    PING.wait(TIMED_WAIT_MILLIS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        TIMED_DONE.countDown();
    }
}
