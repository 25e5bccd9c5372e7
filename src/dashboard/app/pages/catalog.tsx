// Courses and institutions: browse and search with the API's filters (an institution found by
// name); a course's code opens its page.
import { useState } from "preact/hooks";
import { useDashboard } from "../context.ts";
import { CopyId, InstitutionName, InstitutionPicker, rememberCourse } from "../names.tsx";
import { DataTable, Empty, Link, ok, PageTitle, pageInQuery, Show, useLoad, useQuery, When } from "../ui.tsx";

const LIMIT = 25;

function SearchForm({
  fields,
  values,
  onApply,
  label,
}: {
  fields: { name: string; label: string; placeholder?: string }[];
  values: Record<string, string>;
  onApply: (values: Record<string, string>) => void;
  label: string;
}) {
  const [draft, setDraft] = useState(values);
  return (
    <form
      class="filters"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft);
      }}
    >
      {fields.map((field) => (
        <div key={field.name}>
          <label for={`s-${field.name}`}>{field.label}</label>
          <input
            id={`s-${field.name}`}
            placeholder={field.placeholder}
            value={draft[field.name] ?? ""}
            onInput={(e) => setDraft({ ...draft, [field.name]: e.currentTarget.value })}
          />
        </div>
      ))}
      <button type="submit">Search</button>
    </form>
  );
}

export function Institutions() {
  const { api } = useDashboard();
  const [query, setQuery] = useQuery();
  const offset = Number(query.get("offset") ?? 0) || 0;
  const q = query.get("q") ?? "";
  const state = query.get("state") ?? "";
  const list = useLoad(
    async () =>
      ok(
        await api.raw.GET("/institutions", {
          params: { query: { limit: LIMIT, offset, ...(q ? { q } : {}), ...(state ? { state } : {}) } },
        }),
      ),
    [api, query.toString()],
  );
  return (
    <>
      <PageTitle>Institutions</PageTitle>
      <SearchForm
        label="Search institutions"
        fields={[
          { name: "q", label: "Name contains" },
          { name: "state", label: "State", placeholder: "CA" },
        ]}
        values={{ q, state }}
        onApply={(values) => setQuery({ ...values, offset: undefined })}
      />
      <Show value={list}>
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>No institution matches. Try a shorter name, or import institutions with the CLI.</Empty>
          ) : (
            <DataTable
              caption="Institutions"
              columns={["Name", "City", "State", "Type", { label: "Id", hidden: true }]}
              rows={data}
              row={(inst) => (
                <tr key={inst.id}>
                  <td title={inst.id}>{inst.name}</td>
                  <td>{inst.city}</td>
                  <td>{inst.state}</td>
                  <td>{inst.type.replaceAll("_", " ")}</td>
                  <td>
                    <CopyId id={inst.id} />
                  </td>
                </tr>
              )}
              page={pageInQuery(pagination.total, LIMIT, offset, setQuery)}
            />
          )
        }
      </Show>
    </>
  );
}

export function Courses() {
  const { api } = useDashboard();
  const [query, setQuery] = useQuery();
  const offset = Number(query.get("offset") ?? 0) || 0;
  const q = query.get("q") ?? "";
  const institution = query.get("institution") ?? "";
  const cip = query.get("cip") ?? "";
  const [draft, setDraft] = useState({ q, institution, cip });
  const list = useLoad(async () => {
    const page = ok(
      await api.raw.GET("/courses", {
        params: {
          query: {
            limit: LIMIT,
            offset,
            ...(q ? { q } : {}),
            ...(institution ? { institution } : {}),
            ...(cip ? { cip } : {}),
          },
        },
      }),
    );
    for (const course of page.data) rememberCourse(api, course);
    return page;
  }, [api, query.toString()]);
  return (
    <>
      <PageTitle>Courses</PageTitle>
      <form
        class="filters"
        aria-label="Search courses"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ ...draft, offset: undefined });
        }}
      >
        <div>
          <label for="s-q">Code or title contains</label>
          <input id="s-q" value={draft.q} onInput={(e) => setDraft({ ...draft, q: e.currentTarget.value })} />
        </div>
        <InstitutionPicker
          id="s-institution"
          label="Institution"
          value={draft.institution}
          onChange={(id) => setDraft((current) => ({ ...current, institution: id }))}
        />
        <div>
          <label for="s-cip">CIP code</label>
          <input
            id="s-cip"
            placeholder="11.0701"
            value={draft.cip}
            onInput={(e) => setDraft({ ...draft, cip: e.currentTarget.value })}
          />
        </div>
        <button type="submit">Search</button>
      </form>
      <Show value={list}>
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>No course matches these filters.</Empty>
          ) : (
            <DataTable
              caption="Courses"
              columns={["Code", "Title", "Institution", "Credits", "Level", "Updated"]}
              rows={data}
              row={(course) => (
                <tr key={course.id}>
                  <td class="mono">
                    <Link to={`/courses/${course.id}`} title={course.id}>
                      {course.code}
                    </Link>
                  </td>
                  <td>{course.title}</td>
                  <td>
                    <InstitutionName id={course.institutionId} />
                  </td>
                  <td>{course.credits}</td>
                  <td>{course.level}</td>
                  <td>
                    <When at={course.updatedAt} />
                  </td>
                </tr>
              )}
              page={pageInQuery(pagination.total, LIMIT, offset, setQuery)}
            />
          )
        }
      </Show>
    </>
  );
}
