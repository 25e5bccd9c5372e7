"""What a partner does with the generated Python client (partners/python.yaml), against a live
server, with no workaround: page by cursor to the end, keep the change feed's cursor, upsert
courses, publish a rule of two source courses with a minimum grade and dates (idempotently, and
replayed), read it back, meet a 409 and read its problem's details from the ApiException, evaluate a
transfer, and read the typed feed from the stored cursor. Then a server answering an extra property
and a new enum value (test_additions.py).

    PYTHONPATH=dist/partners/python PARTNERS_API=http://127.0.0.1:PORT/api/v1 PARTNERS_KEY=svc_sandbox_...
    PARTNERS_SOURCE_INSTITUTION=inst_... PARTNERS_TARGET_INSTITUTION=inst_...
    python3 -m unittest discover -s test/partners/python -v

scripts/ci/partners.sh sets all that up.
"""

import datetime
import os
import unittest
import uuid

import course_equivalency_client as ce
from course_equivalency_client.exceptions import ApiException

PROBLEMS = "https://course-equivalency.org/problems/"
KNOWN_EVENTS = list(ce.EventType)


def setting(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise RuntimeError(f"{name} is not set (see this file's docstring)")
    return value


class PartnerFlow(unittest.TestCase):
    """One flow, in order: each step uses what the previous ones made."""

    @classmethod
    def setUpClass(cls):
        configuration = ce.Configuration(host=setting("PARTNERS_API"), access_token=setting("PARTNERS_KEY"))
        cls.client = ce.ApiClient(configuration)
        cls.source = setting("PARTNERS_SOURCE_INSTITUTION")
        cls.target = setting("PARTNERS_TARGET_INSTITUTION")

    def rule(self, lecture: str, lab: str, code: str, start: datetime.date, until=None):
        return ce.EquivalencyCreate(
            source_course_ids=[lecture, lab],
            target_institution_id=self.target,
            kind=ce.RuleKind.ELECTIVE,
            targets=[ce.RuleTargetInput(code=code)],
            minimum_grade=ce.LetterGrade.C,
            effective_from=start,
            effective_until=until,
            status=ce.EquivalencyStatus.ACCEPTED,
            policy_basis="Partner client CI",
        )

    def test_the_flow(self):
        institutions = ce.InstitutionsApi(self.client)
        courses = ce.CoursesApi(self.client)
        equivalencies = ce.EquivalenciesApi(self.client)
        events = ce.EventsApi(self.client)

        # Cursor paging to the end.
        seen, cursor, pages = set(), None, 0
        while True:
            page = institutions.list_institutions(limit=25, after=cursor)
            for institution in page.data:
                self.assertNotIn(institution.id, seen)
                seen.add(institution.id)
            pages += 1
            cursor = page.pagination.next_cursor
            if cursor is None or pages >= 100:
                break
        self.assertIsNone(cursor)
        self.assertGreater(pages, 1)
        self.assertEqual(page.pagination.total, len(seen))

        # The change feed, read to its end: keep the cursor.
        feed_cursor = None
        while True:
            page = events.list_events(type=KNOWN_EVENTS, limit=100, after=feed_cursor)
            feed_cursor = page.pagination.next_cursor
            if not page.pagination.has_more:
                break
        self.assertIsNotNone(feed_cursor)

        # Two courses in one batch.
        code = "PYTH " + uuid.uuid4().hex[:5].upper()
        batch = [
            ce.CourseUpsert(institution_id=self.source, code=code, title="Partner Integration", credits=3,
                            level=ce.CourseLevel.LOWER, cip_code="11.0701"),
            ce.CourseUpsert(institution_id=self.source, code=code + "L", title="Partner Integration Lab", credits=1,
                            level=ce.CourseLevel.LOWER, cip_code="11.0701"),
        ]
        upserted = courses.upsert_courses(ce.CourseUpsertRequest(batch))
        self.assertEqual(["created", "created"], [result.result for result in upserted.data])
        lecture, lab = (result.id for result in upserted.data)

        # The dry run and the creation answer one type.
        create = self.rule(lecture, lab, "ELEC 1XX", datetime.date(2024, 8, 15), datetime.date(2030, 6, 30))
        preview = equivalencies.create_equivalency(create, dry_run=True)
        self.assertIsInstance(preview, ce.EquivalencyCreateResponse)
        self.assertTrue(preview.dry_run)
        self.assertIsNone(preview.data.id)

        key = str(uuid.uuid4())
        created = equivalencies.create_equivalency_with_http_info(create, idempotency_key=key)
        self.assertEqual(201, created.status_code)
        self.assertIsInstance(created.data, ce.EquivalencyCreated)  # Python reads each status by its own model
        self.assertIs(False, created.data.dry_run)
        rule_id = created.data.data.id
        self.assertTrue(created.headers["Location"].endswith("/equivalencies/" + rule_id))
        self.assertEqual(ce.LetterGrade.C, created.data.data.minimum_grade)
        self.assertEqual("C", ce.LetterGrade.C.value, "LetterGrade.C is C, not C+")

        # An idempotent replay answers the first creation.
        replayed = equivalencies.create_equivalency_with_http_info(create, idempotency_key=key)
        self.assertEqual(201, replayed.status_code)
        self.assertEqual("true", replayed.headers["Idempotent-Replayed"])
        self.assertEqual(rule_id, replayed.data.data.id)

        # Read back.
        read = equivalencies.get_equivalency(rule_id).data
        self.assertEqual([lecture, lab], read.source_course_ids)
        self.assertEqual(ce.RuleKind.ELECTIVE, read.kind)
        self.assertEqual("ELEC 1XX", read.targets[0].code)
        self.assertEqual(ce.LetterGrade.C, read.minimum_grade)
        self.assertEqual(datetime.date(2024, 8, 15), read.effective_from)
        self.assertEqual(datetime.date(2030, 6, 30), read.effective_until)
        self.assertIsNone(read.target_course)
        self.assertEqual(self.source, read.source_course.institution.id)

        # A 409 whose problem names the rule it contradicts.
        with self.assertRaises(ApiException) as caught:
            equivalencies.create_equivalency(self.rule(lecture, lab, "ELEC 2XX", datetime.date(2024, 9, 1)))
        self.assertEqual(409, caught.exception.status)
        problem = caught.exception.data
        self.assertIsInstance(problem, ce.Problem)
        self.assertEqual(PROBLEMS + "ambiguous-rule", problem.type)
        self.assertEqual([rule_id], problem.conflicting_equivalency_ids)

        # A transfer evaluation: C meets the minimum, C- does not.
        completed = datetime.date(2025, 5, 20)
        evaluations = ce.EvaluationsApi(self.client)

        def evaluate(lab_grade):
            return evaluations.create_transfer_evaluation(ce.TransferEvaluationRequest(
                target_institution_id=self.target,
                courses=[
                    ce.TransferEvaluationCourse(course_id=lecture, grade=ce.CourseGrade.B, completed_on=completed),
                    ce.TransferEvaluationCourse(course_id=lab, grade=lab_grade, completed_on=completed),
                ],
            )).data.results

        for result in evaluate(ce.CourseGrade.C):
            self.assertEqual(ce.TransferOutcome.ELECTIVE, result.outcome, result.reasons)
            self.assertEqual(rule_id, result.equivalency_id)
            self.assertEqual([lecture, lab], result.combined_with)
        self.assertEqual(ce.TransferOutcome.CONDITION_NOT_MET, evaluate(ce.CourseGrade.C_MINUS)[1].outcome)

        # The typed feed from the stored cursor: one creation (the dry run and the replay wrote nothing).
        created_events, cursor = [], feed_cursor
        while True:
            page = events.list_events(type=KNOWN_EVENTS, limit=100, after=cursor)
            for event in page.data:
                self.assertIsInstance(event, ce.Event)
                item = event.actual_instance
                if isinstance(item, ce.EquivalencyCreatedEvent) and lecture in (item.data.source_course_ids or []):
                    created_events.append(item)
            cursor = page.pagination.next_cursor
            if not page.pagination.has_more:
                break
        self.assertEqual(1, len(created_events))
        self.assertEqual(rule_id, created_events[0].data.equivalency_id)
        self.assertEqual(ce.EquivalencyStatus.ACCEPTED, created_events[0].data.status)
        self.assertNotEqual(feed_cursor, cursor)

        # A 404 with its problem.
        with self.assertRaises(ApiException) as caught:
            equivalencies.get_equivalency("eq_01J0000000000000000000000Z")
        self.assertEqual(404, caught.exception.status)
        self.assertEqual(PROBLEMS + "not-found", caught.exception.data.type)


if __name__ == "__main__":
    unittest.main()
