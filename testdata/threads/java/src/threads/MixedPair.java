package threads;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A cycle through one monitor and one ReentrantLock: "mixed-monitor" holds
 * the monitor of GUARD and waits for LOCK, "mixed-lock" holds LOCK and
 * waits to lock GUARD. A third thread, "mixed-bystander", waits for LOCK
 * holding nothing: blocked behind the deadlock, not part of it.
 */
public final class MixedPair {
    /** The object whose monitor mixed-monitor holds. */
    static final class Guard {}

    static final Guard GUARD = new Guard();
    static final ReentrantLock LOCK = new ReentrantLock();
    static final CountDownLatch BOTH_HOLD = new CountDownLatch(2);

    public static void main(String[] args) {
        Fixture.start("mixed-monitor", MixedPair::monitorThenLock);
        Fixture.start("mixed-lock", MixedPair::lockThenMonitor);
        Fixture.awaitDeadlock(2);
        Thread bystander = Fixture.start("mixed-bystander", MixedPair::lockOnly);
        Fixture.awaitStates(new Thread[] {bystander}, new Thread.State[] {Thread.State.WAITING});
        Fixture.ready();
        Fixture.parkForever();
    }

    static void monitorThenLock() {
        synchronized (GUARD) {
            BOTH_HOLD.countDown();
            Fixture.await(BOTH_HOLD);
            LOCK.lock();
            throw new IllegalStateException("mixed-monitor got both locks");
        }
    }

    static void lockThenMonitor() {
        LOCK.lock();
        try {
            BOTH_HOLD.countDown();
            Fixture.await(BOTH_HOLD);
            synchronized (GUARD) {
                throw new IllegalStateException("mixed-lock got both locks");
            }
        } finally {
            LOCK.unlock();
        }
    }

    static void lockOnly() {
        LOCK.lock();
        throw new IllegalStateException("mixed-bystander got the lock");
    }
}
