package threads;

/**
 * A cycle closed by a thread re-entering a monitor after Object.wait():
 * "relock-a" holds NOTE's monitor, then waits on MAIL (releasing it);
 * "relock-b" takes MAIL, notifies, and while still holding MAIL waits to
 * lock NOTE. relock-a, woken, must re-lock MAIL, which relock-b holds.
 */
public final class WaitRelock {
    /** The monitor relock-a keeps while waiting. */
    static final class Note {}

    /** The monitor relock-a waits on and must re-lock. */
    static final class Mail {}

    static final Note NOTE = new Note();
    static final Mail MAIL = new Mail();

    public static void main(String[] args) {
        Thread a = Fixture.start("relock-a", WaitRelock::waitHoldingNote);
        Fixture.awaitStates(new Thread[] {a}, new Thread.State[] {Thread.State.WAITING});
        Thread b = Fixture.start("relock-b", WaitRelock::notifyThenNote);
        Fixture.awaitStates(new Thread[] {a, b}, new Thread.State[] {Thread.State.BLOCKED, Thread.State.BLOCKED});
        Fixture.ready();
        Fixture.parkForever();
    }

    static void waitHoldingNote() {
        synchronized (NOTE) {
            synchronized (MAIL) {
                try {
                    MAIL.wait();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    static void notifyThenNote() {
        synchronized (MAIL) {
            MAIL.notifyAll();
            synchronized (NOTE) {
                throw new IllegalStateException("relock-b got both locks");
            }
        }
    }
}
