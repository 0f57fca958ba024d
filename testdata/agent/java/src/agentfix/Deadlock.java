package agentfix;

import java.util.concurrent.CountDownLatch;

/**
 * Monitor deadlock fixture: three threads in a cycle of synchronized
 * monitors of three classes. "cycle-a" holds the LockA monitor and waits to
 * enter LockB, "cycle-b" holds LockB and waits for LockC, "cycle-c" holds
 * LockC and waits for LockA. "bystander" waits to enter LockB holding
 * nothing (blocked behind the cycle, not in it). "mail-waiter" is in
 * Mailbox.wait() (waiting to be notified) on the Mailbox monitor, which
 * "mail-owner" holds while sleeping for good (no deadlock there).
 *
 * Prints READY once the JVM's own detector sees the cycle and every other
 * thread is in place; gen.sh then takes the JVM's thread dump and sends
 * SIGQUIT, on which the hprof agent (monitor=y) writes its MONITOR DUMP.
 */
public final class Deadlock implements Runnable {
    static final LockA A = new LockA();
    static final LockB B = new LockB();
    static final LockC C = new LockC();
    static final Mailbox MAILBOX = new Mailbox();

    static final CountDownLatch ALL_HOLD = new CountDownLatch(3);

    private final int role;

    private Deadlock(int role) {
        this.role = role;
    }

    public static void main(String[] args) {
        Thread a = Control.start("cycle-a", new Deadlock(0));
        Thread b = Control.start("cycle-b", new Deadlock(1));
        Thread c = Control.start("cycle-c", new Deadlock(2));
        Control.awaitDeadlock(3);
        Thread bystander = Control.start("bystander", new Deadlock(3));
        Thread mailWaiter = Control.start("mail-waiter", new Deadlock(4));
        Control.awaitState(new Thread[] {bystander, a, b, c}, Thread.State.BLOCKED);
        Control.awaitState(new Thread[] {mailWaiter}, Thread.State.WAITING);
        Thread mailOwner = Control.start("mail-owner", new Deadlock(5));
        Control.awaitState(new Thread[] {mailOwner}, Thread.State.TIMED_WAITING);
        Control.ready();
        Control.parkForever();
    }

    @Override
    public void run() {
        switch (role) {
            case 0:
                holdAThenB();
                break;
            case 1:
                holdBThenC();
                break;
            case 2:
                holdCThenA();
                break;
            case 3:
                enterB();
                break;
            case 4:
                waitForMail();
                break;
            default:
                holdMailbox();
                break;
        }
    }

    static void holdAThenB() {
        synchronized (A) {
            ALL_HOLD.countDown();
            Control.await(ALL_HOLD);
            synchronized (B) {
                throw new IllegalStateException("cycle-a got LockB");
            }
        }
    }

    static void holdBThenC() {
        synchronized (B) {
            ALL_HOLD.countDown();
            Control.await(ALL_HOLD);
            synchronized (C) {
                throw new IllegalStateException("cycle-b got LockC");
            }
        }
    }

    static void holdCThenA() {
        synchronized (C) {
            ALL_HOLD.countDown();
            Control.await(ALL_HOLD);
            synchronized (A) {
                throw new IllegalStateException("cycle-c got LockA");
            }
        }
    }

    static void enterB() {
        synchronized (B) {
            throw new IllegalStateException("bystander got LockB");
        }
    }

    static void waitForMail() {
        synchronized (MAILBOX) {
            try {
                MAILBOX.wait();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("mail-waiter was notified");
    }

    static void holdMailbox() {
        synchronized (MAILBOX) {
            Control.parkForever();
        }
    }
}
