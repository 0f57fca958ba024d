package bench;

/** One entry of the audit log, a singly linked chain millions long. */
final class AuditEvent {
    final AuditEvent next;
    final long timestamp;
    final int kind;
    final String message;
    final long customerId;

    AuditEvent(AuditEvent next, long timestamp, int kind, String message, long customerId) {
        this.next = next;
        this.timestamp = timestamp;
        this.kind = kind;
        this.message = message;
        this.customerId = customerId;
    }
}
