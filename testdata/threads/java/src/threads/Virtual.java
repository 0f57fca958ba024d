package threads;

import java.lang.reflect.Method;
import java.util.concurrent.locks.LockSupport;

/**
 * Virtual threads in known states, for a JDK 24+ heap dump (the program is
 * compiled for release 17, so it starts them through reflection; it needs a
 * JDK 21+ to run): "virtual-parked" parks forever (WAITING),
 * "virtual-sleeping" sleeps (TIMED_WAITING), "virtual-waiting" is in
 * Object.wait() on Virtual$Mailbox (WAITING), and "virtual-blocked" waits to
 * lock Virtual$Guard, which the platform thread "guard-holder" holds while
 * it sleeps (BLOCKED).
 */
public final class Virtual {
    /** The monitor virtual-waiting waits on. */
    static final class Mailbox {}

    /** The monitor guard-holder holds and virtual-blocked wants. */
    static final class Guard {}

    static final Mailbox MAILBOX = new Mailbox();
    static final Guard GUARD = new Guard();

    public static void main(String[] args) throws Exception {
        Thread holder = Fixture.start("guard-holder", () -> {
            synchronized (GUARD) {
                Fixture.sleep(Long.MAX_VALUE);
            }
        });
        Fixture.awaitStates(new Thread[] {holder}, new Thread.State[] {Thread.State.TIMED_WAITING});
        Thread[] virtual = {
            startVirtual("virtual-parked", () -> {
                while (true) {
                    LockSupport.park();
                }
            }),
            startVirtual("virtual-sleeping", () -> Fixture.sleep(Long.MAX_VALUE)),
            startVirtual("virtual-waiting", () -> {
                synchronized (MAILBOX) {
                    while (true) {
                        try {
                            MAILBOX.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            }),
            startVirtual("virtual-blocked", () -> {
                synchronized (GUARD) {
                    throw new IllegalStateException("virtual-blocked got the guard");
                }
            }),
        };
        Fixture.awaitStates(virtual, new Thread.State[] {
            Thread.State.WAITING, Thread.State.TIMED_WAITING, Thread.State.WAITING, Thread.State.BLOCKED});
        Fixture.ready();
        Fixture.parkForever();
    }

    /** Starts a virtual thread named name (Thread.ofVirtual().name(name).start(body)). */
    static Thread startVirtual(String name, Runnable body) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> api = Class.forName("java.lang.Thread$Builder");
        Method named = api.getMethod("name", String.class);
        Method start = api.getMethod("start", Runnable.class);
        return (Thread) start.invoke(named.invoke(builder, name), body);
    }
}
