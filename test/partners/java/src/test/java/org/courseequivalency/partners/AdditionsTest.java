package org.courseequivalency.partners;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.courseequivalency.client.ApiClient;
import org.courseequivalency.client.api.CoursesApi;
import org.courseequivalency.client.api.InstitutionsApi;
import org.courseequivalency.client.model.CourseLevel;
import org.courseequivalency.client.model.CourseUpsert;
import org.courseequivalency.client.model.CourseUpsertRequest;
import org.courseequivalency.client.model.CourseUpsertResult;
import org.courseequivalency.client.model.Institution;
import org.courseequivalency.client.model.InstitutionType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The document's Versioning section lets a later server add response properties and enum values.
 * A server that answers one extra property and one new enum value (a named enum and an inline one)
 * is read without error: the extra property is kept, the new value reads as UNKNOWN_DEFAULT_OPEN_API
 * (partners/java.yaml: disallowAdditionalPropertiesIfNotPresent false, enumUnknownDefaultCase).
 */
class AdditionsTest {
  private static HttpServer server;
  private static ApiClient client;

  private static final Map<String, String> ANSWERS = Map.of(
      "/api/v1/institutions/inst_1",
      "{\"data\":{\"id\":\"inst_1\",\"ipedsId\":\"1\",\"name\":\"A Later College\",\"city\":\"Somewhere\",\"state\":\"CA\","
          + "\"type\":\"tribal_college\",\"system\":null,\"source\":\"direct\",\"accreditor\":{\"name\":\"WSCUC\"}}}",
      "/api/v1/courses",
      "{\"data\":[{\"id\":\"crs_1\",\"institutionId\":\"inst_1\",\"code\":\"MATH 1\",\"version\":2,\"result\":\"merged\","
          + "\"mergedFrom\":[\"crs_0\"]}],\"summary\":{\"received\":1,\"created\":0,\"updated\":0,\"merged\":1}}");

  @BeforeAll
  static void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      String body = ANSWERS.get(exchange.getRequestURI().getPath());
      byte[] bytes = (body == null ? "{}" : body).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    });
    server.start();
    client = new ApiClient();
    client.setBasePath("http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1");
    client.setBearerToken("svc_sandbox_additions");
  }

  @AfterAll
  static void stop() {
    server.stop(0);
  }

  @Test
  void readsANewPropertyAndANewEnumValue() throws Exception {
    Institution institution = new InstitutionsApi(client).getInstitution("inst_1").getData();
    assertEquals("A Later College", institution.getName());
    assertEquals(InstitutionType.UNKNOWN_DEFAULT_OPEN_API, institution.getType());
    assertNotNull(institution.getAdditionalProperty("accreditor"), "the new property is kept");
  }

  @Test
  void readsANewInlineEnumValue() throws Exception {
    CourseUpsert course = new CourseUpsert().institutionId("inst_1").code("MATH 1").title("Math")
        .credits(java.math.BigDecimal.ONE).level(CourseLevel.LOWER).cipCode("27.0101");
    List<CourseUpsertResult> results =
        new CoursesApi(client).upsertCourses(new CourseUpsertRequest(course), null, null).getData();
    assertEquals(CourseUpsertResult.ResultEnum.UNKNOWN_DEFAULT_OPEN_API, results.get(0).getResult());
  }
}
