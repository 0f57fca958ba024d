package agentfix;

import java.lang.ref.Reference;
import java.util.concurrent.CountDownLatch;

/** Runs on thread "stack-holder"; hold() keeps a StackOnly in a local and blocks. */
final class StackHolder implements Runnable {
    static final String THREAD_NAME = "stack-holder";
    static final CountDownLatch ENTERED = new CountDownLatch(1);
    static final CountDownLatch RELEASE = new CountDownLatch(1); // never counted down

    @Override
    public void run() {
        hold();
    }

    static void hold() {
        StackOnly local = new StackOnly(new StackChild(4242));
        ENTERED.countDown();
        Control.await(RELEASE);
        Reference.reachabilityFence(local); // keep the local live across await()
    }
}
