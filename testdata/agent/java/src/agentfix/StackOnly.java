package agentfix;

/** Held only in a local variable of StackHolder.hold() on thread "stack-holder". */
final class StackOnly {
    final StackChild child;

    StackOnly(StackChild child) {
        this.child = child;
    }
}
