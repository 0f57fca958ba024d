package threads;

import java.util.concurrent.CountDownLatch;

/**
 * Two threads in a synchronized cycle: "pair-a" holds LEFT and waits to
 * lock RIGHT, "pair-b" holds RIGHT and waits to lock LEFT. With the
 * argument "log" it also writes application log lines to stdout every
 * 100 ms, so that a SIGQUIT dump lands between them.
 */
public final class MonitorPair {
    /** The lock pair-a takes first. */
    static final class Left {}

    /** The lock pair-b takes first. */
    static final class Right {}

    static final Left LEFT = new Left();
    static final Right RIGHT = new Right();
    static final CountDownLatch BOTH_HOLD = new CountDownLatch(2);

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("log")) {
            Fixture.start("app-logger", MonitorPair::log);
        }
        Fixture.start("pair-a", MonitorPair::leftThenRight);
        Fixture.start("pair-b", MonitorPair::rightThenLeft);
        Fixture.awaitDeadlock(2);
        Fixture.ready();
        Fixture.parkForever();
    }

    static void leftThenRight() {
        synchronized (LEFT) {
            BOTH_HOLD.countDown();
            Fixture.await(BOTH_HOLD);
            synchronized (RIGHT) {
                throw new IllegalStateException("pair-a got both locks");
            }
        }
    }

    static void rightThenLeft() {
        synchronized (RIGHT) {
            BOTH_HOLD.countDown();
            Fixture.await(BOTH_HOLD);
            synchronized (LEFT) {
                throw new IllegalStateException("pair-b got both locks");
            }
        }
    }

    static void log() {
        for (long n = 1; ; n++) {
            System.out.printf("2026-01-01 12:00:%02d.%03d INFO  [app-logger] orders.Service - heartbeat %d, queue depth 0%n",
                    (n / 10) % 60, (n % 10) * 100, n);
            System.out.flush();
            Fixture.sleep(100);
        }
    }
}
