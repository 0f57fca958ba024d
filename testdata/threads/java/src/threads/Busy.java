package threads;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A busy process with no deadlock: threads waiting to be notified, in a
 * timed wait, sleeping, parked on a condition, spinning, and three threads
 * blocked on locks whose owners are not blocked (a sleeper, and a notifier
 * that sleeps while holding the monitor its waiter must re-lock). One
 * thread's name holds spaces, quotes and a '#'.
 */
public final class Busy {
    /** A monitor a thread waits on to be notified. */
    static final class Mailbox {}

    /** The monitor and lock the sleeper holds while sleeping. */
    static final class Resource {}

    /** The monitor the relock waiter is notified on. */
    static final class Signal {}

    static final Mailbox MAILBOX = new Mailbox();
    static final Mailbox TIMED_MAILBOX = new Mailbox();
    static final Resource RESOURCE = new Resource();
    static final ReentrantLock RESOURCE_LOCK = new ReentrantLock();
    static final ReentrantLock CONDITION_LOCK = new ReentrantLock();
    static final Condition NEVER = CONDITION_LOCK.newCondition();
    static final Signal SIGNAL = new Signal();
    static volatile long spins;

    public static void main(String[] args) {
        Thread waiter = Fixture.start("busy-waiter", () -> waitOn(MAILBOX, 0));
        Thread timed = Fixture.start("busy \"timed\" waiter #2", () -> waitOn(TIMED_MAILBOX, 3_600_000));
        Thread sleeper = Fixture.start("busy-sleeper", Busy::holdAndSleep);
        Fixture.awaitStates(new Thread[] {sleeper}, new Thread.State[] {Thread.State.TIMED_WAITING});
        Thread blocked = Fixture.start("busy-blocked", Busy::enterResource);
        Thread parked = Fixture.start("busy-parked", Busy::lockResource);
        Thread condition = Fixture.start("busy-condition", Busy::awaitCondition);
        Thread spinner = Fixture.start("busy-spinner", Busy::spin);
        Thread relock = Fixture.start("busy-relock", () -> waitOn(SIGNAL, 0));
        Fixture.awaitStates(new Thread[] {relock}, new Thread.State[] {Thread.State.WAITING});
        Thread notifier = Fixture.start("busy-notifier", Busy::notifyAndSleep);
        Fixture.awaitStates(
                new Thread[] {waiter, timed, sleeper, blocked, parked, condition, spinner, relock, notifier},
                new Thread.State[] {
                    Thread.State.WAITING, Thread.State.TIMED_WAITING, Thread.State.TIMED_WAITING,
                    Thread.State.BLOCKED, Thread.State.WAITING, Thread.State.WAITING,
                    Thread.State.RUNNABLE, Thread.State.BLOCKED, Thread.State.TIMED_WAITING,
                });
        Fixture.ready();
        Fixture.parkForever();
    }

    static void waitOn(Object monitor, long millis) {
        synchronized (monitor) {
            try {
                monitor.wait(millis);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    static void holdAndSleep() {
        synchronized (RESOURCE) {
            RESOURCE_LOCK.lock();
            Fixture.parkForever();
        }
    }

    static void enterResource() {
        synchronized (RESOURCE) {
            throw new IllegalStateException("busy-blocked got the monitor");
        }
    }

    static void lockResource() {
        RESOURCE_LOCK.lock();
        throw new IllegalStateException("busy-parked got the lock");
    }

    static void awaitCondition() {
        CONDITION_LOCK.lock();
        try {
            NEVER.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        } finally {
            CONDITION_LOCK.unlock();
        }
    }

    static void spin() {
        while (true) {
            spins++;
            Thread.onSpinWait();
        }
    }

    static void notifyAndSleep() {
        synchronized (SIGNAL) {
            SIGNAL.notifyAll();
            Fixture.parkForever();
        }
    }
}
