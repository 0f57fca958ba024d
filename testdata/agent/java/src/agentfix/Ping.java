package agentfix;

/** The monitor "mc-timed-waiter" calls wait(20) on, never notified. */
final class Ping {
}
