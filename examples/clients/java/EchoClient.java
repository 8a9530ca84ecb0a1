import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

/**
 * A diperf client in Java: one call is an HTTP GET of $DIPERF_TARGET (or,
 * with no target, a small CPU task), reporting the bytes it read.
 *
 * <pre>
 * java -cp DIR EchoClient [--once]     exec client: one call, exit status 0 = ok;
 *                                      extras on the fd in $DIPERF_EXTRAS_FD
 * java -cp DIR EchoClient --persistent persistent client: the line protocol
 *                                      of docs/clients.md on stdin/stdout
 * </pre>
 *
 * Only the standard library is used (Java 11 or later).
 */
public final class EchoClient {
    private EchoClient() {}

    /** Makes one call and returns its extras (key=value ...), or throws. */
    static String call() throws Exception {
        long start = System.nanoTime();
        String target = System.getenv("DIPERF_TARGET");
        long n = 0;
        if (target != null && !target.isEmpty()) {
            HttpURLConnection c = (HttpURLConnection) URI.create(target).toURL().openConnection();
            c.setConnectTimeout(10000);
            c.setReadTimeout(10000);
            int code = c.getResponseCode();
            if (code / 100 != 2) {
                c.getErrorStream();
                throw new Exception("HTTP status " + code);
            }
            try (InputStream in = c.getInputStream()) {
                byte[] buf = new byte[8192];
                for (int r; (r = in.read(buf)) > 0; ) {
                    n += r;
                }
            }
        } else {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] data = "diperf".getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < 1000; i++) {
                data = md.digest(data);
            }
            n = data.length;
        }
        double ms = (System.nanoTime() - start) / 1e6;
        return String.format(Locale.ROOT, "bytes=%d work_ms=%.3f", n, ms);
    }

    static int once() {
        String extras;
        try {
            extras = call();
        } catch (Exception e) {
            System.err.println("EchoClient: " + e);
            return 1;
        }
        String fd = System.getenv("DIPERF_EXTRAS_FD");
        if (fd != null && !fd.isEmpty()) {
            try (OutputStream out = new FileOutputStream("/dev/fd/" + fd)) {
                out.write((extras + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (Exception e) {
                System.err.println("EchoClient: extras: " + e);
            }
        }
        return 0;
    }

    static int persistent() throws Exception {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.print("ready\n");
        out.flush();
        for (String line; (line = in.readLine()) != null; ) { // "call <n>"; EOF means stop
            if (!line.startsWith("call")) {
                continue;
            }
            String reply;
            try {
                reply = "ok " + call();
            } catch (Exception e) {
                reply = "fail " + String.valueOf(e).replaceAll("\\s+", " ");
            }
            out.print(reply + "\n");
            out.flush();
        }
        return 0;
    }

    public static void main(String[] args) throws Exception {
        boolean persistent = args.length > 0 && args[0].equals("--persistent");
        System.exit(persistent ? persistent() : once());
    }
}
