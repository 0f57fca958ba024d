package threads;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Two threads in a ReentrantLock cycle: "lock-a" holds FIRST and waits for
 * SECOND, "lock-b" holds SECOND and waits for FIRST. FIRST is fair and
 * SECOND non-fair, so both synchronizer classes appear.
 */
public final class LockPair {
    static final ReentrantLock FIRST = new ReentrantLock(true);
    static final ReentrantLock SECOND = new ReentrantLock();
    static final CountDownLatch BOTH_HOLD = new CountDownLatch(2);

    public static void main(String[] args) {
        Fixture.start("lock-a", () -> hold(FIRST, SECOND));
        Fixture.start("lock-b", () -> hold(SECOND, FIRST));
        Fixture.awaitDeadlock(2);
        Fixture.ready();
        Fixture.parkForever();
    }

    static void hold(ReentrantLock mine, ReentrantLock other) {
        mine.lock();
        try {
            BOTH_HOLD.countDown();
            Fixture.await(BOTH_HOLD);
            other.lock();
            throw new IllegalStateException(Thread.currentThread().getName() + " got both locks");
        } finally {
            mine.unlock();
        }
    }
}
