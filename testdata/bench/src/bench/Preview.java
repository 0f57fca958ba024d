package bench;

/** A cached rendering reachable only through a WeakReference. */
final class Preview {
    final byte[] pixels;

    Preview(byte[] pixels) {
        this.pixels = pixels;
    }
}
