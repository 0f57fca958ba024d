package threads;

import java.util.concurrent.CountDownLatch;

/**
 * Three threads in a synchronized cycle: "ring-0" holds Slot 0 and waits
 * for Slot 1, "ring-1" holds Slot 1 and waits for Slot 2, "ring-2" holds
 * Slot 2 and waits for Slot 0. A fourth thread, "ring-bystander", waits to
 * lock Slot 1 without holding anything: it is blocked behind the deadlock,
 * not part of it.
 */
public final class MonitorRing {
    /** One lock of the ring. */
    static final class Slot {
        final int index;

        Slot(int index) {
            this.index = index;
        }
    }

    static final Slot[] SLOTS = {new Slot(0), new Slot(1), new Slot(2)};
    static final CountDownLatch ALL_HOLD = new CountDownLatch(3);

    public static void main(String[] args) {
        for (int i = 0; i < 3; i++) {
            int k = i;
            Fixture.start("ring-" + k, () -> hold(SLOTS[k], SLOTS[(k + 1) % 3]));
        }
        Fixture.awaitDeadlock(3);
        Thread bystander = Fixture.start("ring-bystander", MonitorRing::enterSlot1);
        Fixture.awaitStates(new Thread[] {bystander}, new Thread.State[] {Thread.State.BLOCKED});
        Fixture.ready();
        Fixture.parkForever();
    }

    static void hold(Slot mine, Slot next) {
        synchronized (mine) {
            ALL_HOLD.countDown();
            Fixture.await(ALL_HOLD);
            synchronized (next) {
                throw new IllegalStateException("ring thread got both locks");
            }
        }
    }

    static void enterSlot1() {
        synchronized (SLOTS[1]) {
            throw new IllegalStateException("bystander got the lock");
        }
    }
}
