// Courses and institutions: browse and search with the API's filters.
import { useState } from "preact/hooks";
import { useDashboard } from "../context.ts";
import { Empty, ok, PageTitle, Show, useLoad, useQuery, When, DataTable, pageInQuery } from "../ui.tsx";

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
              columns={["Name", "Id", "City", "State", "Type"]}
              rows={data}
              row={(inst) => (
                <tr key={inst.id}>
                  <td>{inst.name}</td>
                  <td class="mono">{inst.id}</td>
                  <td>{inst.city}</td>
                  <td>{inst.state}</td>
                  <td>{inst.type.replaceAll("_", " ")}</td>
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
  const list = useLoad(
    async () =>
      ok(
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
      ),
    [api, query.toString()],
  );
  return (
    <>
      <PageTitle>Courses</PageTitle>
      <SearchForm
        label="Search courses"
        fields={[
          { name: "q", label: "Code or title contains" },
          { name: "institution", label: "Institution id", placeholder: "inst_110635" },
          { name: "cip", label: "CIP code", placeholder: "11.0701" },
        ]}
        values={{ q, institution, cip }}
        onApply={(values) => setQuery({ ...values, offset: undefined })}
      />
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
                  <td class="mono">{course.code}</td>
                  <td>{course.title}</td>
                  <td class="mono">{course.institutionId}</td>
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
