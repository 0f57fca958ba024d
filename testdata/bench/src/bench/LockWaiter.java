package bench;

import java.util.concurrent.locks.ReentrantLock;

/** Parks waiting for a ReentrantLock that LockHolder keeps. */
final class LockWaiter implements Runnable {
    private final ReentrantLock lock;

    LockWaiter(ReentrantLock lock) {
        this.lock = lock;
    }

    @Override
    public void run() {
        lock.lock();
        lock.unlock();
    }
}
