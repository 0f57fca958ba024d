package agentfix;

import java.lang.ref.WeakReference;

/** Reachable only through WeakOnly.REF, a WeakReference held in a static field. */
final class WeakOnly {
    static WeakReference<WeakOnly> REF;

    final long marker = 0x5745414B4F4E4C59L; // "WEAKONLY" in ASCII

    private WeakOnly() {
    }

    static void make() {
        REF = new WeakReference<>(new WeakOnly());
    }
}
