package agentfix;

/** A monitor of the Deadlock cycle (only its class matters). */
final class LockB {
}
