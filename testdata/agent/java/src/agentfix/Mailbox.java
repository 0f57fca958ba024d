package agentfix;

/** A monitor that "mail-waiter" waits on and "mail-owner" then holds for good. */
final class Mailbox {
}
