package org.courseequivalency.partners;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.courseequivalency.client.ApiClient;
import org.courseequivalency.client.ApiException;
import org.courseequivalency.client.ApiResponse;
import org.courseequivalency.client.api.CoursesApi;
import org.courseequivalency.client.api.EquivalenciesApi;
import org.courseequivalency.client.api.EvaluationsApi;
import org.courseequivalency.client.api.EventsApi;
import org.courseequivalency.client.api.InstitutionsApi;
import org.courseequivalency.client.model.CourseGrade;
import org.courseequivalency.client.model.CourseLevel;
import org.courseequivalency.client.model.CourseUpsert;
import org.courseequivalency.client.model.CourseUpsertRequest;
import org.courseequivalency.client.model.CourseUpsertResponse;
import org.courseequivalency.client.model.CourseUpsertResult;
import org.courseequivalency.client.model.EquivalencyCreate;
import org.courseequivalency.client.model.EquivalencyCreateResponse;
import org.courseequivalency.client.model.EquivalencyCreatedEvent;
import org.courseequivalency.client.model.EquivalencyExpanded;
import org.courseequivalency.client.model.EquivalencyStatus;
import org.courseequivalency.client.model.Event;
import org.courseequivalency.client.model.EventList;
import org.courseequivalency.client.model.EventType;
import org.courseequivalency.client.model.Institution;
import org.courseequivalency.client.model.InstitutionList;
import org.courseequivalency.client.model.LetterGrade;
import org.courseequivalency.client.model.Problem;
import org.courseequivalency.client.model.RuleKind;
import org.courseequivalency.client.model.RuleTargetInput;
import org.courseequivalency.client.model.TransferEvaluation;
import org.courseequivalency.client.model.TransferEvaluationCourse;
import org.courseequivalency.client.model.TransferEvaluationRequest;
import org.courseequivalency.client.model.TransferEvaluationResult;
import org.courseequivalency.client.model.TransferOutcome;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What a partner does with the generated Java client (partners/java.yaml), against a live server,
 * with no workaround: page by cursor to the end, keep the change feed's cursor, upsert courses,
 * publish a rule of two source courses with a minimum grade and dates (idempotently, and replayed),
 * read it back, meet a 409 and read its problem's details from the ApiException, evaluate a
 * transfer, and read the typed feed from the stored cursor.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClientTest {
  private static final String PROBLEMS = "https://course-equivalency.org/problems/";
  /** The event types this client knows: a newer server's other types are not asked for. */
  private static final List<EventType> KNOWN_EVENTS = Arrays.stream(EventType.values())
      .filter(type -> type != EventType.UNKNOWN_DEFAULT_OPEN_API)
      .toList();

  private static ApiClient client;
  private static String sourceInstitution;
  private static String targetInstitution;
  private static String feedCursor;
  private static String lectureId;
  private static String labId;
  private static String ruleId;

  private static String setting(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) throw new IllegalStateException(name + " is not set (see pom.xml)");
    return value;
  }

  @BeforeAll
  static void connect() {
    client = new ApiClient();
    client.setBasePath(setting("PARTNERS_API"));
    client.setBearerToken(setting("PARTNERS_KEY"));
    sourceInstitution = setting("PARTNERS_SOURCE_INSTITUTION");
    targetInstitution = setting("PARTNERS_TARGET_INSTITUTION");
  }

  /** The problem document of a failed call, read with the generated model. */
  static Problem problemOf(ApiException error) throws Exception {
    assertNotNull(error.getResponseBody(), "a problem body");
    return Problem.fromJson(error.getResponseBody());
  }

  private static EquivalencyCreate rule(String targetCode, LocalDate from, LocalDate until) {
    return new EquivalencyCreate()
        .sourceCourseIds(List.of(lectureId, labId))
        .targetInstitutionId(targetInstitution)
        .kind(RuleKind.ELECTIVE)
        .targets(List.of(new RuleTargetInput().code(targetCode)))
        .minimumGrade(LetterGrade.C)
        .effectiveFrom(from)
        .effectiveUntil(until)
        .status(EquivalencyStatus.ACCEPTED)
        .policyBasis("Partner client CI");
  }

  @Test
  @Order(1)
  void pagesThroughEveryInstitutionByCursor() throws ApiException {
    InstitutionsApi institutions = new InstitutionsApi(client);
    Set<String> seen = new HashSet<>();
    String cursor = null;
    int pages = 0;
    Integer total = null;
    do {
      InstitutionList page = institutions.listInstitutions(null, null, null, null, 25, null, cursor);
      total = page.getPagination().getTotal();
      for (Institution institution : page.getData())
        assertTrue(seen.add(institution.getId()), "a page repeats " + institution.getId());
      cursor = page.getPagination().getNextCursor();
      pages++;
    } while (cursor != null && pages < 100);
    assertNull(cursor, "the last page has no next cursor");
    assertTrue(pages > 1, "several pages");
    assertEquals(total, seen.size(), "every institution once");
  }

  @Test
  @Order(2)
  void readsTheFeedToItsEndAndKeepsTheCursor() throws ApiException {
    EventsApi events = new EventsApi(client);
    String cursor = null;
    EventList page;
    do {
      page = events.listEvents(KNOWN_EVENTS, null, 100, cursor);
      cursor = page.getPagination().getNextCursor();
    } while (page.getPagination().getHasMore());
    assertNotNull(cursor, "a caught-up page still hands out its cursor");
    feedCursor = cursor;
  }

  @Test
  @Order(3)
  void upsertsALectureAndItsLabInOneBatch() throws ApiException {
    String code = "PTNR " + UUID.randomUUID().toString().substring(0, 5).toUpperCase();
    CourseUpsert lecture = new CourseUpsert().institutionId(sourceInstitution).code(code).title("Partner Integration")
        .credits(new BigDecimal("3")).level(CourseLevel.LOWER).description(null).cipCode("11.0701");
    CourseUpsert lab = new CourseUpsert().institutionId(sourceInstitution).code(code + "L").title("Partner Integration Lab")
        .credits(new BigDecimal("1")).level(CourseLevel.LOWER).cipCode("11.0701");
    CourseUpsertResponse response =
        new CoursesApi(client).upsertCourses(new CourseUpsertRequest(List.of(lecture, lab)), null, null);
    assertEquals(2, response.getData().size());
    for (CourseUpsertResult result : response.getData())
      assertEquals(CourseUpsertResult.ResultEnum.CREATED, result.getResult());
    lectureId = response.getData().get(0).getId();
    labId = response.getData().get(1).getId();
    assertNull(response.getDryRun(), "dryRun is only in dry runs");
  }

  @Test
  @Order(4)
  void previewsTheRuleWithTheSameType() throws ApiException {
    EquivalencyCreateResponse preview = new EquivalenciesApi(client)
        .createEquivalency(rule("ELEC 1XX", LocalDate.of(2024, 8, 15), LocalDate.of(2030, 6, 30)), null, true);
    assertEquals(Boolean.TRUE, preview.getDryRun());
    assertNull(preview.getData().getId(), "nothing stored");
    assertEquals(LetterGrade.C, preview.getData().getMinimumGrade());
  }

  @Test
  @Order(5)
  void createsARuleOfTwoCoursesWithAMinimumGradeAndDatesAndReplaysIt() throws ApiException {
    EquivalenciesApi equivalencies = new EquivalenciesApi(client);
    EquivalencyCreate create = rule("ELEC 1XX", LocalDate.of(2024, 8, 15), LocalDate.of(2030, 6, 30));
    String key = UUID.randomUUID().toString();
    ApiResponse<EquivalencyCreateResponse> created = equivalencies.createEquivalencyWithHttpInfo(create, key, null);
    assertEquals(201, created.getStatusCode());
    assertEquals(Boolean.FALSE, created.getData().getDryRun(), "a real creation says dryRun: false");
    ruleId = created.getData().getData().getId();
    assertNotNull(ruleId);
    assertTrue(header(created, "Location").endsWith("/equivalencies/" + ruleId));
    assertEquals(LetterGrade.C, created.getData().getData().getMinimumGrade());
    assertEquals("C", LetterGrade.C.getValue(), "LetterGrade.C is C, not C+");

    ApiResponse<EquivalencyCreateResponse> replayed = equivalencies.createEquivalencyWithHttpInfo(create, key, null);
    assertEquals(201, replayed.getStatusCode());
    assertEquals("true", header(replayed, "Idempotent-Replayed"));
    assertEquals(ruleId, replayed.getData().getData().getId(), "the replay answers the first creation");
  }

  private static String header(ApiResponse<?> response, String name) {
    for (Map.Entry<String, List<String>> entry : response.getHeaders().entrySet())
      if (entry.getKey().equalsIgnoreCase(name)) return entry.getValue().get(0);
    throw new AssertionError("no " + name + " header");
  }

  @Test
  @Order(6)
  void readsTheRuleBack() throws ApiException {
    EquivalencyExpanded read = new EquivalenciesApi(client).getEquivalency(ruleId).getData();
    assertEquals(List.of(lectureId, labId), read.getSourceCourseIds());
    assertEquals(targetInstitution, read.getTargetInstitutionId());
    assertEquals(RuleKind.ELECTIVE, read.getKind());
    assertEquals("ELEC 1XX", read.getTargets().get(0).getCode());
    assertEquals(LetterGrade.C, read.getMinimumGrade());
    assertEquals(LocalDate.of(2024, 8, 15), read.getEffectiveFrom());
    assertEquals(LocalDate.of(2030, 6, 30), read.getEffectiveUntil());
    assertEquals(EquivalencyStatus.ACCEPTED, read.getStatus());
    assertNull(read.getTargetCourse(), "a nullable object read as null");
    assertEquals(sourceInstitution, read.getSourceCourse().getInstitution().getId());
  }

  @Test
  @Order(7)
  void anAmbiguousRuleIsA409WhoseProblemNamesTheRule() throws Exception {
    ApiException error = assertThrows(ApiException.class, () -> new EquivalenciesApi(client)
        .createEquivalency(rule("ELEC 2XX", LocalDate.of(2024, 9, 1), null), null, null));
    assertEquals(409, error.getCode());
    Problem problem = problemOf(error);
    assertEquals(PROBLEMS + "ambiguous-rule", String.valueOf(problem.getType()));
    assertEquals(List.of(ruleId), problem.getConflictingEquivalencyIds());
    assertNotNull(problem.getRequestId());
  }

  @Test
  @Order(8)
  void evaluatesATransferByTheRule() throws ApiException {
    EvaluationsApi evaluations = new EvaluationsApi(client);
    LocalDate completed = LocalDate.of(2025, 5, 20);
    TransferEvaluation passed = evaluations.createTransferEvaluation(new TransferEvaluationRequest()
        .targetInstitutionId(targetInstitution)
        .courses(List.of(
            new TransferEvaluationCourse().courseId(lectureId).grade(CourseGrade.B).completedOn(completed),
            new TransferEvaluationCourse().courseId(labId).grade(CourseGrade.C).completedOn(completed))))
        .getData();
    for (TransferEvaluationResult result : passed.getResults()) {
      assertEquals(TransferOutcome.ELECTIVE, result.getOutcome(), String.valueOf(result.getReasons()));
      assertEquals(ruleId, result.getEquivalencyId());
      assertEquals(List.of(lectureId, labId), result.getCombinedWith());
    }
    TransferEvaluation failed = evaluations.createTransferEvaluation(new TransferEvaluationRequest()
        .targetInstitutionId(targetInstitution)
        .courses(List.of(
            new TransferEvaluationCourse().courseId(lectureId).grade(CourseGrade.B).completedOn(completed),
            new TransferEvaluationCourse().courseId(labId).grade(CourseGrade.C_MINUS).completedOn(completed))))
        .getData();
    assertEquals(TransferOutcome.CONDITION_NOT_MET, failed.getResults().get(1).getOutcome(), "C- is below C");
  }

  @Test
  @Order(9)
  void readsTheTypedFeedFromTheStoredCursor() throws ApiException {
    EventsApi events = new EventsApi(client);
    List<EquivalencyCreatedEvent> created = new ArrayList<>();
    String cursor = feedCursor;
    EventList page;
    do {
      page = events.listEvents(KNOWN_EVENTS, null, 100, cursor);
      for (Event event : page.getData())
        if (event.getActualInstance() instanceof EquivalencyCreatedEvent e
            && e.getData().getSourceCourseIds() != null && e.getData().getSourceCourseIds().contains(lectureId))
          created.add(e);
      cursor = page.getPagination().getNextCursor();
    } while (page.getPagination().getHasMore());
    assertEquals(1, created.size(), "one creation event: the replay and the dry run wrote nothing");
    EquivalencyCreatedEvent event = assertInstanceOf(EquivalencyCreatedEvent.class, created.get(0));
    assertEquals(ruleId, event.getData().getEquivalencyId());
    assertEquals(EquivalencyStatus.ACCEPTED, event.getData().getStatus());
    assertEquals("C", event.getData().getMinimumGrade());
    assertFalse(cursor.equals(feedCursor), "the cursor moved on");
  }

  @Test
  @Order(10)
  void anUnknownIdIsA404ApiExceptionWithAProblem() throws Exception {
    ApiException error = assertThrows(
        ApiException.class, () -> new EquivalenciesApi(client).getEquivalency("eq_01J0000000000000000000000Z"));
    assertEquals(404, error.getCode());
    Problem problem = problemOf(error);
    assertEquals(404, problem.getStatus());
    assertEquals(PROBLEMS + "not-found", String.valueOf(problem.getType()));
  }

  @Test
  @Order(11)
  void anInvalidParameterIsA400ApiExceptionWithAPointer() throws Exception {
    ApiException error = assertThrows(
        ApiException.class,
        () -> new InstitutionsApi(client).listInstitutions(null, null, null, null, 1000, null, null));
    assertEquals(400, error.getCode());
    Problem problem = problemOf(error);
    assertEquals(PROBLEMS + "validation-failed", String.valueOf(problem.getType()));
    assertEquals("/query/limit", problem.getErrors().get(0).getPointer());
  }
}
