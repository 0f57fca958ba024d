package bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/** Takes a ReentrantLock and keeps it, so that another thread parks on it. */
final class LockHolder implements Runnable {
    private final ReentrantLock lock;
    private final CountDownLatch locked;
    private final CountDownLatch release;

    LockHolder(ReentrantLock lock, CountDownLatch locked, CountDownLatch release) {
        this.lock = lock;
        this.locked = locked;
        this.release = release;
    }

    @Override
    public void run() {
        lock.lock();
        try {
            locked.countDown();
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }
}
