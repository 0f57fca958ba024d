package agentfix;

/** The one monitor the Contention fixture's waiters contend for. */
final class ContendedLock {
    int entries;
}
