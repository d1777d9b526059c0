package io.graphmem.launcher;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Starts Neo4j Community in-process with Bolt on 127.0.0.1 and blocks until SIGTERM.
 *
 * <p>Arguments: {@code --home DIR --bolt-port N [--browser-port N] [--pagecache-mb N]
 * [--auth true|false]}. The store under {@code DIR/data} persists across restarts. Prints exactly
 * one line starting with {@code GRAPHMEM_NEO4J_READY} once Bolt accepts connections, or one line
 * starting with {@code GRAPHMEM_NEO4J_FAILED} (then exits with status 2) when a port cannot be
 * bound or the DBMS does not start.
 *
 * <p>With {@code --auth true}, authentication is on; on the first start of a store the password of
 * user {@code neo4j} is set from the environment variable {@code GRAPHMEM_LAUNCHER_PASSWORD} (kept
 * off the command line). Uses only API present in Neo4j 5.26 and the 2025.x/2026.x releases.
 */
public final class Launcher {

  private Launcher() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = parse(args);
    Path home = Path.of(opts.getOrDefault("--home", "neo4j-home")).toAbsolutePath();
    int boltPort = Integer.parseInt(opts.getOrDefault("--bolt-port", "7687"));
    int browserPort = Integer.parseInt(opts.getOrDefault("--browser-port", "0"));
    long pagecacheMb = Long.parseLong(opts.getOrDefault("--pagecache-mb", "256"));
    boolean auth = Boolean.parseBoolean(opts.getOrDefault("--auth", "false"));
    String password = System.getenv("GRAPHMEM_LAUNCHER_PASSWORD");
    if (auth && (password == null || password.length() < 8)) {
      fail("authentication is on but the password is missing or shorter than 8 characters");
    }

    // Fail in a second rather than after the DBMS has started its databases.
    requireFree(boltPort, "Bolt");
    HttpServer browser = null;
    if (browserPort > 0) {
      try {
        browser = startBrowser(browserPort);
      } catch (BindException e) {
        fail("Browser port " + browserPort + " on 127.0.0.1 is already in use");
      }
    }
    DatabaseManagementService dbms = null;
    try {
      dbms =
          new DatabaseManagementServiceBuilder(home)
              .setConfig(BoltConnector.enabled, true)
              .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", boltPort))
              // the routing table a neo4j:// client asks for names this port, not the default
              .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", boltPort))
              .setConfig(HttpConnector.enabled, false)
              .setConfig(HttpsConnector.enabled, false)
              .setConfig(GraphDatabaseSettings.auth_enabled, auth)
              .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecacheMb))
              .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
              .setConfig(
                  GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(25))
              .loadPropertiesFromFile(writeRawSettings(home))
              .build();
      if (auth) {
        setInitialPassword(dbms, home, password);
      }
      // Touch the default database so the store is created before "ready".
      dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
    } catch (Throwable e) {
      if (browser != null) {
        browser.stop(0);
      }
      Throwable root = rootCause(e);
      String msg = String.valueOf(root.getMessage());
      if (root instanceof BindException || msg.contains("Address already in use")) {
        fail("Bolt port " + boltPort + " on 127.0.0.1 is already in use");
      }
      fail("Neo4j did not start: " + root.getClass().getSimpleName() + ": " + msg);
    }

    final HttpServer browserServer = browser;
    final DatabaseManagementService service = dbms;
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (browserServer != null) {
                    browserServer.stop(0);
                  }
                  service.shutdown();
                  stopped.countDown();
                }));
    System.out.println(
        "GRAPHMEM_NEO4J_READY bolt=bolt://127.0.0.1:"
            + boltPort
            + (browser != null ? " browser=http://127.0.0.1:" + browserPort + "/browser/" : "")
            + " auth="
            + auth);
    System.out.flush();
    stopped.await();
  }

  /** Exits with the failure line when {@code 127.0.0.1:port} cannot be bound right now. */
  private static void requireFree(int port, String kind) {
    try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(new InetSocketAddress("127.0.0.1", port));
    } catch (IOException e) {
      fail(kind + " port " + port + " on 127.0.0.1 is already in use");
    }
  }

  /** Prints the one failure line and exits with status 2 (no stack trace). */
  private static void fail(String message) {
    System.out.println("GRAPHMEM_NEO4J_FAILED " + message);
    System.out.flush();
    Runtime.getRuntime().halt(2);
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      if (t instanceof BindException) {
        return t;
      }
      t = t.getCause();
    }
    return t;
  }

  /**
   * Sets user neo4j's password once per store (the embedded API runs with full rights), so a
   * restart keeps whatever password the store has, as a team's server does.
   */
  private static void setInitialPassword(DatabaseManagementService dbms, Path home, String pw)
      throws IOException {
    Path marker = home.resolve("conf").resolve("graphmem-password-set");
    if (Files.exists(marker)) {
      return;
    }
    dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
        .executeTransactionally(
            "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", pw));
    Files.writeString(marker, "initial password of user neo4j set\n");
  }

  /** Settings without a typed constant in the embedded API, written as a properties file. */
  private static Path writeRawSettings(Path home) throws IOException {
    Path conf = home.resolve("conf").resolve("graphmem-launcher.conf");
    Files.createDirectories(conf.getParent());
    Files.writeString(
        conf,
        "dbms.usage_report.enabled=false\n" + "server.logs.debug.enabled=false\n");
    return conf;
  }

  private static Map<String, String> parse(String[] args) {
    java.util.HashMap<String, String> out = new java.util.HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --option value, got: " + args[i]);
      }
      out.put(args[i], args[i + 1]);
    }
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException("option without value: " + args[args.length - 1]);
    }
    return out;
  }

  /** Serves the neo4j-browser jar's classpath folder {@code browser/} on 127.0.0.1. */
  private static HttpServer startBrowser(int port) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    server.createContext("/", Launcher::serveBrowserFile);
    server.start();
    return server;
  }

  private static void serveBrowserFile(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    if (path.equals("/") || path.isEmpty()) {
      exchange.getResponseHeaders().add("Location", "/browser/");
      exchange.sendResponseHeaders(302, -1);
      exchange.close();
      return;
    }
    if (path.contains("..")) {
      exchange.sendResponseHeaders(400, -1);
      exchange.close();
      return;
    }
    String resource = path.substring(1);
    if (resource.endsWith("/")) {
      resource = resource + "index.html";
    }
    try (InputStream in = Launcher.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        exchange.sendResponseHeaders(404, -1);
        exchange.close();
        return;
      }
      byte[] body = in.readAllBytes();
      exchange.getResponseHeaders().add("Content-Type", contentType(resource));
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static String contentType(String name) {
    if (name.endsWith(".html")) return "text/html; charset=utf-8";
    if (name.endsWith(".js")) return "application/javascript";
    if (name.endsWith(".css")) return "text/css";
    if (name.endsWith(".json")) return "application/json";
    if (name.endsWith(".svg")) return "image/svg+xml";
    if (name.endsWith(".png")) return "image/png";
    if (name.endsWith(".ico")) return "image/x-icon";
    if (name.endsWith(".woff")) return "font/woff";
    if (name.endsWith(".woff2")) return "font/woff2";
    if (name.endsWith(".ttf")) return "font/ttf";
    return "application/octet-stream";
  }
}
