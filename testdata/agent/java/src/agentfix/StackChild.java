package agentfix;

/** Referenced only by the StackOnly object, which only a stack frame holds. */
final class StackChild {
    final int value;

    StackChild(int value) {
        this.value = value;
    }
}
