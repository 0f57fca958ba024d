package bench;

/** Garbage made after the last GC: unreachable in the dump. */
final class Discarded {
    final String note;
    final long value;

    Discarded(String note, long value) {
        this.note = note;
        this.value = value;
    }
}
