"""The document's Versioning section lets a later server add response properties and enum values.
A server (a stub on a free port) answering one extra property is read without error by the
generated Python client. A new enum value is refused: pydantic checks every enum field against the
values the client was generated with, and the generator's enumUnknownDefaultCase writes an enum
member Python cannot compile (docs/partners.md, known limits); the test keeps that limit visible.
"""

import http.server
import json
import threading
import unittest

import course_equivalency_client as ce

INSTITUTION = {
    "id": "inst_1", "ipedsId": "1", "name": "A Later College", "city": "Somewhere", "state": "CA",
    "type": "community_college", "system": None, "source": "direct",
}


class Stub(http.server.BaseHTTPRequestHandler):
    answers = {
        "/api/v1/institutions/inst_1": {"data": {**INSTITUTION, "accreditor": {"name": "WSCUC"}}},
        "/api/v1/institutions/inst_2": {"data": {**INSTITUTION, "id": "inst_2", "type": "tribal_college"}},
    }

    def do_GET(self):  # noqa: N802 (the standard library's name)
        body = json.dumps(self.answers.get(self.path, {})).encode()
        self.send_response(200 if self.path in self.answers else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Additions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stub)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        host = f"http://127.0.0.1:{cls.server.server_address[1]}/api/v1"
        cls.institutions = ce.InstitutionsApi(ce.ApiClient(ce.Configuration(host=host, access_token="svc_sandbox_x")))

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def test_an_extra_property_is_read_without_error(self):
        institution = self.institutions.get_institution("inst_1").data
        self.assertEqual("A Later College", institution.name)
        self.assertEqual(ce.InstitutionType.COMMUNITY_COLLEGE, institution.type)

    def test_a_new_enum_value_is_refused_a_known_limit(self):
        with self.assertRaises(ValueError):
            self.institutions.get_institution("inst_2")


if __name__ == "__main__":
    unittest.main()
