package agentfix;

/** Bottom of the hierarchy: a subclass of a subclass of Base. */
final class Sub extends Mid {
    final long weight;

    Sub(int id) {
        super(id);
        this.weight = 2L * id;
    }
}
