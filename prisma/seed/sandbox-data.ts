/**
 * Demo dataset for the sandbox environment.
 *
 * Institutions are real: IPEDS unit IDs, names, cities, states and system names
 * follow the IPEDS 2023 institutional directory (HD2023). Types map IPEDS sectors:
 * public 2-year -> community_college, public 4-year -> four_year_public, private
 * nonprofit 4-year -> four_year_private. Courses carry CIP 2020 six-digit codes.
 * Course catalogs and equivalency decisions are illustrative demo data modelled on
 * the transfer clusters of each state (ASSIST, TCCNS, SCNS, SUNY/CUNY, VCCS, DTA,
 * AZTransfer, Ohio TAG, NC CAA); they are not authoritative articulation records.
 *
 * The module is self-contained and deterministic: no imports, no randomness, no
 * clock. Everything below the type exports is built from the tables in this file.
 */

export type InstitutionType = "community_college" | "four_year_public" | "four_year_private";
export type Channel = "channel_a" | "channel_b" | "direct";
export type EquivalencyStatus = "accepted" | "pending" | "conflict";
export interface SeedInstitution { ipedsId: string; name: string; city: string; state: string; type: InstitutionType; system: string | null; source: Channel; }
export interface SeedCourse { ipedsId: string; code: string; title: string; credits: number; level: "lower" | "upper"; description: string | null; cipCode: string | null; }
/** One change after creation; applied in order, each producing a new version. */
export interface SeedChange { status?: EquivalencyStatus; policyBasis?: string | null; decidedBy?: string | null; targetCode?: string | null; note: string; }
export interface SeedEquivalency {
  source: { ipedsId: string; code: string };          // must be a course in seedCourses
  target: { ipedsId: string; courseCode?: string; targetCode?: string }; // courseCode: a course of that institution in seedCourses; or targetCode: a free code such as "ELEC 1XX" with no course record; at most one of the two
  status: EquivalencyStatus;                           // status at version 1
  decidedBy: string | null; policyBasis: string | null;
  provenance: Channel;
  history?: SeedChange[];                              // later versions
}

// ---------------------------------------------------------------------------
// Subjects: the shared vocabulary that lets courses at different institutions
// be matched. Each carries its CIP 2020 code, a subject area and a typical year.
// ---------------------------------------------------------------------------

type Area =
  | "ENG" | "MATH" | "STAT" | "BIO" | "CHEM" | "PHYS" | "PSY" | "SOC" | "ANTH" | "ECON"
  | "HIST" | "GOV" | "PHIL" | "SPAN" | "COMM" | "CS" | "ACCT" | "FIN" | "MKT" | "ART"
  | "MUS" | "CRIM" | "NUTR" | "ENGR" | "EDUC" | "GEN";

interface SubjectDef { cip: string | null; area: Area; year: 1 | 2 | 3; desc: string; }

const SUBJECTS = {
  ENG1: { cip: "23.1301", area: "ENG", year: 1, desc: "Develops college-level reading, writing and revision through source-based expository and argumentative essays." },
  ENG2: { cip: "23.1301", area: "ENG", year: 1, desc: "Extends first-year composition with research methods, synthesis of sources and sustained written argument." },
  LIT: { cip: "23.0101", area: "ENG", year: 2, desc: "Introduces close reading of fiction, poetry and drama and the writing of literary analysis." },
  PRECALC: { cip: "27.0101", area: "MATH", year: 1, desc: "Studies polynomial, rational, exponential, logarithmic and trigonometric functions in preparation for calculus." },
  COLALG: { cip: "27.0101", area: "MATH", year: 1, desc: "Covers equations, inequalities, functions and their graphs, and systems of equations." },
  CALC1: { cip: "27.0101", area: "MATH", year: 1, desc: "Introduces limits, continuity, derivatives and their applications, and the definite integral." },
  CALC2: { cip: "27.0101", area: "MATH", year: 1, desc: "Covers techniques and applications of integration, improper integrals, sequences and infinite series." },
  CALC3: { cip: "27.0101", area: "MATH", year: 2, desc: "Extends calculus to vectors, functions of several variables, partial derivatives and multiple integrals." },
  LINALG: { cip: "27.0102", area: "MATH", year: 2, desc: "Covers linear systems, matrices, determinants, vector spaces, eigenvalues and linear transformations." },
  DIFFEQ: { cip: "27.0301", area: "MATH", year: 2, desc: "Solves first- and higher-order ordinary differential equations with applications in science and engineering." },
  STATS: { cip: "27.0501", area: "STAT", year: 1, desc: "Covers descriptive statistics, probability, sampling distributions, confidence intervals and hypothesis tests." },
  BIO1: { cip: "26.0101", area: "BIO", year: 1, desc: "Introduces cell structure and function, metabolism, genetics and molecular biology for science majors." },
  BIO1L: { cip: "26.0101", area: "BIO", year: 1, desc: "Laboratory exercises in microscopy, cell biology and genetics that accompany the majors biology lecture." },
  BIO2: { cip: "26.0101", area: "BIO", year: 1, desc: "Surveys evolution, biodiversity, organismal biology and ecology for science majors." },
  AP1: { cip: "26.0901", area: "BIO", year: 1, desc: "Examines the structure and function of cells, tissues and the integumentary, skeletal, muscular and nervous systems." },
  MICRO: { cip: "26.0502", area: "BIO", year: 2, desc: "Surveys microbial structure, metabolism, genetics and pathogenesis with laboratory culture techniques." },
  GENETICS: { cip: "26.0801", area: "BIO", year: 3, desc: "Covers Mendelian and molecular genetics, gene regulation and the analysis of inheritance." },
  CHEM1: { cip: "40.0501", area: "CHEM", year: 1, desc: "Covers atomic structure, bonding, stoichiometry, gases and thermochemistry." },
  CHEM1L: { cip: "40.0501", area: "CHEM", year: 1, desc: "Introduces quantitative laboratory techniques that accompany the first term of general chemistry." },
  CHEM2: { cip: "40.0501", area: "CHEM", year: 1, desc: "Covers kinetics, chemical equilibrium, acids and bases, thermodynamics and electrochemistry." },
  OCHEM1: { cip: "40.0504", area: "CHEM", year: 2, desc: "Covers structure, nomenclature, stereochemistry and reaction mechanisms of organic compounds." },
  PHYS1: { cip: "40.0801", area: "PHYS", year: 1, desc: "Calculus-based treatment of kinematics, Newton's laws, work, energy, momentum and rotational motion." },
  PHYS2: { cip: "40.0801", area: "PHYS", year: 1, desc: "Calculus-based treatment of electric fields, circuits, magnetism and electromagnetic induction." },
  PSY: { cip: "42.0101", area: "PSY", year: 1, desc: "Surveys the scientific study of behavior and mental processes, including learning, cognition, development and personality." },
  DEVPSY: { cip: "42.2703", area: "PSY", year: 2, desc: "Examines physical, cognitive and social development from conception through late adulthood." },
  ABPSY: { cip: "42.2801", area: "PSY", year: 3, desc: "Examines the classification, causes and treatment of psychological disorders." },
  LEARNFW: { cip: "42.2701", area: "PSY", year: 1, desc: "Applies research on learning, cognition and motivation to academic strategies and self-regulated study." },
  SOC: { cip: "45.1101", area: "SOC", year: 1, desc: "Introduces sociological perspectives on culture, socialization, social structure and inequality." },
  ANTH: { cip: "45.0201", area: "ANTH", year: 1, desc: "Compares human cultures through kinship, economy, religion and political organization." },
  MACRO: { cip: "45.0601", area: "ECON", year: 1, desc: "Covers national income, unemployment, inflation, money and banking, and fiscal and monetary policy." },
  MICROECON: { cip: "45.0601", area: "ECON", year: 1, desc: "Covers supply and demand, consumer choice, production costs, market structures and market failure." },
  INTMICRO: { cip: "45.0601", area: "ECON", year: 3, desc: "Develops consumer and producer theory, general equilibrium and welfare analysis with calculus." },
  USH1: { cip: "54.0102", area: "HIST", year: 1, desc: "Surveys United States history from the colonial era through the Civil War and Reconstruction." },
  USH2: { cip: "54.0102", area: "HIST", year: 1, desc: "Surveys United States history from Reconstruction to the present." },
  GOVT: { cip: "45.1002", area: "GOV", year: 1, desc: "Examines the constitutional foundations, institutions and political processes of American government." },
  PHIL: { cip: "38.0101", area: "PHIL", year: 1, desc: "Introduces central problems of knowledge, reality, mind and value through classic and contemporary texts." },
  ETHICS: { cip: "38.0103", area: "PHIL", year: 1, desc: "Examines major ethical theories and applies them to contemporary moral problems." },
  SPAN1: { cip: "16.0905", area: "SPAN", year: 1, desc: "Develops beginning listening, speaking, reading and writing skills in Spanish." },
  COMM: { cip: "09.0101", area: "COMM", year: 1, desc: "Develops the research, organization and delivery of informative and persuasive speeches." },
  CS1: { cip: "11.0701", area: "CS", year: 1, desc: "Covers problem solving and program design in a high-level language: control structures, functions and basic data types." },
  CS2: { cip: "11.0701", area: "CS", year: 1, desc: "Covers object-oriented design, recursion and fundamental data structures such as lists, stacks, queues and trees." },
  ALGO: { cip: "11.0701", area: "CS", year: 3, desc: "Covers algorithm design paradigms, asymptotic analysis, graph algorithms and NP-completeness." },
  ACCT1: { cip: "52.0301", area: "ACCT", year: 1, desc: "Introduces the accounting cycle and the preparation and analysis of financial statements." },
  ACCT2: { cip: "52.0301", area: "ACCT", year: 2, desc: "Covers cost behavior, budgeting, cost allocation and accounting information for management decisions." },
  FIN: { cip: "52.0801", area: "FIN", year: 3, desc: "Introduces time value of money, valuation, risk and return, and capital budgeting." },
  MKT: { cip: "52.1401", area: "MKT", year: 3, desc: "Introduces market analysis, consumer behavior, segmentation and the marketing mix." },
  ARTH: { cip: "50.0703", area: "ART", year: 1, desc: "Surveys painting, sculpture and architecture from prehistory through the medieval period." },
  MUS: { cip: "50.0901", area: "MUS", year: 1, desc: "Develops listening skills and surveys musical styles, forms and genres across historical periods." },
  CRIM: { cip: "43.0104", area: "CRIM", year: 1, desc: "Surveys policing, courts and corrections and the processes of the American criminal justice system." },
  NUTR: { cip: "19.0501", area: "NUTR", year: 1, desc: "Covers nutrients, digestion, energy balance and the role of diet in health across the life span." },
  ENGR: { cip: "14.0101", area: "ENGR", year: 1, desc: "Introduces engineering disciplines, the design process, teamwork and technical communication." },
  STATICS: { cip: "14.1101", area: "ENGR", year: 2, desc: "Analyzes force systems, equilibrium of particles and rigid bodies, trusses, friction and centroids." },
  FYE: { cip: null, area: "GEN", year: 1, desc: "Orients new students to academic expectations, campus resources, study skills and educational planning." },
  SEMINAR: { cip: null, area: "GEN", year: 1, desc: "Interdisciplinary first-year seminar exploring a rotating theme through reading, discussion and writing." },
  COOP: { cip: null, area: "GEN", year: 2, desc: "Supervised work experience related to the student's program, with learning objectives agreed with the employer." },
} satisfies Record<string, SubjectDef>;

type SubjectKey = keyof typeof SUBJECTS;
const subject = (key: SubjectKey): SubjectDef => SUBJECTS[key];

// ---------------------------------------------------------------------------
// Institutions and their course catalogs.
// Row: [code, subject, credits, title, level override ("U" = upper, "L" = lower)]
// ---------------------------------------------------------------------------

type CourseRow = [code: string, key: SubjectKey, credits: number, title: string, level?: "U" | "L"];

interface InstDef extends SeedInstitution {
  /** Short name used in notes and department deciders. */
  short: string;
  /** Office that records transfer decisions (four-year institutions). */
  office: string;
  courses: CourseRow[];
}

function inst(
  ipedsId: string, name: string, city: string, state: string, type: InstitutionType,
  system: string | null, source: Channel, short: string, office: string, courses: CourseRow[],
): InstDef {
  return { ipedsId, name, city, state, type, system, source, short, office, courses };
}

const CCC = "California Community College System";
const UC = "University of California";
const CSU = "California State University";
const SUSF = "State University System of Florida";
const CUNY = "City University of New York";
const SUNY = "State University of New York System";
const VCCS = "Virginia Community College System";
const WSBCTC = "Washington State Board for Community and Technical Colleges";
const MCCD = "Maricopa Community College District";
const ABOR = "Arizona Board of Regents";
const NCCCS = "North Carolina Community College System";
const UNC = "University of North Carolina";

const INSTITUTIONS: InstDef[] = [
  // ----------------------------------------------------------------- California
  inst("113333", "De Anza College", "Cupertino", "CA", "community_college", CCC, "channel_a", "De Anza", "", [
    ["ENGL 1A", "ENG1", 5, "Composition and Reading"],
    ["ENGL 1B", "LIT", 5, "Composition, Critical Reading and Literature"],
    ["ENGL 1C", "ENG2", 5, "Advanced Composition and Critical Thinking"],
    ["MATH 1A", "CALC1", 5, "Calculus I"],
    ["MATH 1B", "CALC2", 5, "Calculus II"],
    ["MATH 1C", "CALC3", 5, "Calculus III"],
    ["MATH 2B", "LINALG", 5, "Linear Algebra"],
    ["MATH 10", "STATS", 5, "Introductory Statistics"],
    ["CHEM 1A", "CHEM1", 5, "General Chemistry"],
    ["CHEM 1B", "CHEM2", 5, "General Chemistry"],
    ["PHYS 4A", "PHYS1", 5, "Physics for Scientists and Engineers: Mechanics"],
    ["BIOL 6B", "BIO1", 5, "Cell and Molecular Biology"],
    ["BIOL 6C", "BIO2", 5, "Evolution, Systematics and Ecology"],
    ["PSYC 1", "PSY", 5, "General Psychology"],
    ["ECON 1", "MACRO", 5, "Principles of Macroeconomics"],
    ["ECON 2", "MICROECON", 5, "Principles of Microeconomics"],
    ["CIS 22A", "CS1", 5, "Beginning Programming Methodologies in C++"],
    ["CIS 22C", "CS2", 5, "Data Abstraction and Structures"],
    ["POLI 1", "GOVT", 5, "American Government and Politics"],
    ["COMM 10", "COMM", 5, "Fundamentals of Oral Communication"],
    ["HIST 17A", "USH1", 4, "History of the United States to 1840"],
  ]),
  inst("121044", "Pasadena City College", "Pasadena", "CA", "community_college", CCC, "channel_b", "Pasadena City College", "", [
    ["ENGL 1A", "ENG1", 4, "Reading and Composition"],
    ["ENGL 1B", "LIT", 4, "Literature and Composition"],
    ["ENGL 1C", "ENG2", 4, "Critical Thinking and Composition"],
    ["MATH 5A", "CALC1", 5, "Single Variable Calculus I"],
    ["MATH 5B", "CALC2", 4, "Single Variable Calculus II"],
    ["MATH 5C", "CALC3", 4, "Multivariable Calculus"],
    ["MATH 15", "STATS", 4, "Elementary Statistics"],
    ["CHEM 1A", "CHEM1", 5, "General Chemistry I"],
    ["CHEM 1B", "CHEM2", 5, "General Chemistry II"],
    ["PHYS 1A", "PHYS1", 4, "Mechanics of Solids and Fluids"],
    ["BIOL 11A", "BIO1", 5, "Principles of Biology: Cells and Molecules"],
    ["PSYC 1", "PSY", 3, "Introduction to Psychology"],
    ["ECON 1", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON 2", "MICROECON", 3, "Principles of Microeconomics"],
    ["CS 111", "CS1", 4, "Programming Fundamentals I"],
    ["CS 131", "CS2", 4, "Data Structures"],
    ["HIST 7A", "USH1", 3, "History of the United States to 1877"],
    ["POLSC 1", "GOVT", 3, "Introduction to American Government"],
    ["COMM 1", "COMM", 3, "Public Speaking"],
    ["SOC 1", "SOC", 3, "Introduction to Sociology"],
    ["ANTH 2", "ANTH", 3, "Cultural Anthropology"],
    ["COUN 10", "FYE", 3, "College Success Strategies"],
  ]),
  inst("113634", "Diablo Valley College", "Pleasant Hill", "CA", "community_college", CCC, "direct", "Diablo Valley College", "", [
    ["ENGL 122", "ENG1", 3, "First-Year Composition"],
    ["ENGL 126", "ENG2", 3, "Critical Thinking: Composition and Literature"],
    ["MATH 192", "CALC1", 5, "Analytic Geometry and Calculus I"],
    ["MATH 193", "CALC2", 5, "Analytic Geometry and Calculus II"],
    ["MATH 292", "CALC3", 5, "Analytic Geometry and Calculus III"],
    ["MATH 194", "LINALG", 3, "Linear Algebra"],
    ["MATH 294", "DIFFEQ", 5, "Differential Equations"],
    ["MATH 142", "STATS", 4, "Elementary Statistics with Probability"],
    ["CHEM 120", "CHEM1", 5, "General College Chemistry I"],
    ["CHEM 121", "CHEM2", 5, "General College Chemistry II"],
    ["PHYS 130", "PHYS1", 4, "Physics for Engineers and Scientists A: Mechanics and Wave Motion"],
    ["PHYS 230", "PHYS2", 4, "Physics for Engineers and Scientists B: Heat and Electromagnetism"],
    ["BIOSC 130", "BIO1", 5, "Principles of Cellular and Molecular Biology"],
    ["COMSC 110", "CS1", 4, "Introduction to Programming"],
    ["COMSC 165", "CS2", 4, "Advanced Programming with C and C++"],
    ["PSYC 101", "PSY", 3, "Introduction to Psychology"],
    ["ECON 220", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON 221", "MICROECON", 3, "Principles of Microeconomics"],
    ["POLSC 121", "GOVT", 3, "Introduction to U.S. Government"],
    ["PHILO 120", "PHIL", 3, "Introduction to Philosophy"],
    ["ENGIN 110", "ENGR", 3, "Introduction to Engineering"],
    ["WRKX 170", "COOP", 2, "Occupational Work Experience Education"],
    ["COUNS 120", "FYE", 1, "Student Success and Educational Planning"],
  ]),
  inst("120342", "Orange Coast College", "Costa Mesa", "CA", "community_college", CCC, "channel_a", "Orange Coast College", "", [
    ["ENGL A100", "ENG1", 4, "Freshman Composition"],
    ["ENGL A110", "ENG2", 4, "Critical Thinking, Reading, and Writing"],
    ["MATH A180", "CALC1", 4, "Calculus 1"],
    ["MATH A185", "CALC2", 4, "Calculus 2"],
    ["MATH A280", "CALC3", 4, "Calculus 3"],
    ["MATH A160", "STATS", 4, "Introduction to Statistics"],
    ["CHEM A180", "CHEM1", 5, "General Chemistry A"],
    ["CHEM A185", "CHEM2", 5, "General Chemistry B"],
    ["PHYS A185", "PHYS1", 4, "Calculus-Based Physics: Mechanics"],
    ["BIOL A180", "BIO1", 4, "Majors Biology: Cell and Molecular"],
    ["BIOL A221", "MICRO", 4, "Microbiology"],
    ["CS A150", "CS1", 3, "C++ Programming 1"],
    ["CS A200", "CS2", 3, "Data Structures"],
    ["PSYC A100", "PSY", 3, "Introduction to Psychology"],
    ["ECON A180", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON A185", "MICROECON", 3, "Principles of Microeconomics"],
    ["HIST A170", "USH1", 3, "History of the United States to 1876"],
    ["COMM A110", "COMM", 3, "Public Speaking"],
    ["NUTR A170", "NUTR", 3, "Nutrition"],
    ["ART A105", "ARTH", 3, "Art History: Prehistoric through Gothic"],
    ["COUN A100", "FYE", 1, "Introduction to College"],
  ]),
  inst("110635", "University of California-Berkeley", "Berkeley", "CA", "four_year_public", UC, "channel_b", "UC Berkeley", "UC Office of the President, Articulation", [
    ["COLWRIT R1A", "ENG1", 4, "Accelerated Reading and Composition"],
    ["MATH 1A", "CALC1", 4, "Calculus"],
    ["MATH 1B", "CALC2", 4, "Calculus"],
    ["MATH 53", "CALC3", 4, "Multivariable Calculus"],
    ["MATH 54", "LINALG", 4, "Linear Algebra and Differential Equations"],
    ["STAT 20", "STATS", 4, "Introduction to Probability and Statistics"],
    ["CHEM 1A", "CHEM1", 3, "General Chemistry"],
    ["CHEM 1AL", "CHEM1L", 1, "General Chemistry Laboratory"],
    ["PHYSICS 7A", "PHYS1", 4, "Physics for Scientists and Engineers"],
    ["PHYSICS 7B", "PHYS2", 4, "Physics for Scientists and Engineers"],
    ["BIOLOGY 1A", "BIO1", 3, "General Biology Lecture"],
    ["COMPSCI 61A", "CS1", 4, "The Structure and Interpretation of Computer Programs"],
    ["COMPSCI 61B", "CS2", 4, "Data Structures"],
    ["PSYCH 1", "PSY", 3, "General Psychology"],
    ["ECON 1", "MICROECON", 4, "Introduction to Economics"],
    ["POL SCI 1", "GOVT", 4, "Introduction to American Politics"],
    ["COMPSCI 170", "ALGO", 4, "Efficient Algorithms and Intractable Problems"],
    ["MCELLBI 140", "GENETICS", 4, "General Genetics"],
    ["PSYCH 130", "ABPSY", 3, "Clinical Psychology"],
  ]),
  inst("110662", "University of California-Los Angeles", "Los Angeles", "CA", "four_year_public", UC, "channel_b", "UCLA", "UC Office of the President, Articulation", [
    ["ENGCOMP 3", "ENG1", 5, "English Composition, Rhetoric, and Language"],
    ["MATH 31A", "CALC1", 4, "Differential and Integral Calculus"],
    ["MATH 31B", "CALC2", 4, "Integration and Infinite Series"],
    ["MATH 32A", "CALC3", 4, "Calculus of Several Variables"],
    ["MATH 33A", "LINALG", 4, "Linear Algebra and Applications"],
    ["STATS 10", "STATS", 5, "Introduction to Statistical Reasoning"],
    ["CHEM 14A", "CHEM1", 4, "Atomic and Molecular Structure, Equilibria, Acids and Bases"],
    ["PHYSICS 1A", "PHYS1", 5, "Physics for Scientists and Engineers: Mechanics"],
    ["LIFESCI 7A", "BIO1", 5, "Cell and Molecular Biology"],
    ["COM SCI 31", "CS1", 4, "Introduction to Computer Science I"],
    ["COM SCI 32", "CS2", 4, "Introduction to Computer Science II"],
    ["PSYCH 10", "PSY", 5, "Introductory Psychology"],
    ["ECON 1", "MICROECON", 5, "Principles of Economics"],
    ["ECON 2", "MACRO", 5, "Principles of Economics"],
    ["POL SCI 40", "GOVT", 5, "Introduction to American Politics"],
    ["HIST 13A", "USH1", 5, "History of the United States and Its Colonial Origins"],
    ["SOCIOL 1", "SOC", 5, "Introductory Sociology"],
    ["COM SCI 180", "ALGO", 4, "Introduction to Algorithms and Complexity"],
    ["PSYCH 127", "ABPSY", 4, "Abnormal Psychology"],
  ]),
  inst("110644", "University of California-Davis", "Davis", "CA", "four_year_public", UC, "direct", "UC Davis", "Articulation Office, UC Davis", [
    ["UWP 1", "ENG1", 4, "Introduction to Academic Literacies"],
    ["MAT 21A", "CALC1", 4, "Calculus"],
    ["MAT 21B", "CALC2", 4, "Calculus"],
    ["MAT 21C", "CALC3", 4, "Calculus"],
    ["MAT 22A", "LINALG", 3, "Linear Algebra"],
    ["STA 13", "STATS", 4, "Elementary Statistics"],
    ["CHE 2A", "CHEM1", 5, "General Chemistry"],
    ["CHE 2B", "CHEM2", 5, "General Chemistry"],
    ["PHY 9A", "PHYS1", 5, "Classical Physics"],
    ["BIS 2A", "BIO1", 5, "Introduction to Biology: Essentials of Life on Earth"],
    ["ECS 36A", "CS1", 4, "Programming and Problem Solving"],
    ["ECS 36C", "CS2", 4, "Data Structures, Algorithms, and Programming"],
    ["PSC 1", "PSY", 4, "General Psychology"],
    ["ECN 1A", "MICROECON", 4, "Principles of Microeconomics"],
    ["ECN 1B", "MACRO", 4, "Principles of Macroeconomics"],
    ["POL 1", "GOVT", 4, "American National Government"],
    ["ENG 6", "ENGR", 4, "Engineering Problem Solving"],
    ["ENG 35", "STATICS", 4, "Statics"],
    ["BIS 101", "GENETICS", 4, "Genes and Gene Expression"],
  ]),
  inst("110680", "University of California-San Diego", "La Jolla", "CA", "four_year_public", UC, "channel_a", "UC San Diego", "Articulation Office, UC San Diego", [
    ["MATH 20A", "CALC1", 4, "Calculus for Science and Engineering"],
    ["MATH 20B", "CALC2", 4, "Calculus for Science and Engineering"],
    ["MATH 20C", "CALC3", 4, "Calculus and Analytic Geometry for Science and Engineering"],
    ["MATH 18", "LINALG", 4, "Linear Algebra"],
    ["MATH 11", "STATS", 5, "Calculus-Based Introductory Probability and Statistics"],
    ["CHEM 6A", "CHEM1", 4, "General Chemistry I"],
    ["CHEM 6B", "CHEM2", 4, "General Chemistry II"],
    ["PHYS 2A", "PHYS1", 4, "Physics: Mechanics"],
    ["BILD 1", "BIO1", 4, "The Cell"],
    ["CSE 8A", "CS1", 4, "Introduction to Programming and Computational Problem-Solving I"],
    ["CSE 12", "CS2", 4, "Basic Data Structures and Object-Oriented Design"],
    ["PSYC 1", "PSY", 4, "Psychology"],
    ["ECON 1", "MICROECON", 4, "Principles of Microeconomics"],
    ["ECON 3", "MACRO", 4, "Principles of Macroeconomics"],
    ["POLI 10", "GOVT", 4, "Introduction to Political Science: American Politics"],
    ["CSE 101", "ALGO", 4, "Design and Analysis of Algorithms"],
  ]),
  inst("122755", "San Jose State University", "San Jose", "CA", "four_year_public", CSU, "channel_b", "San Jose State University", "Articulation Office, San Jose State University", [
    ["ENGL 1A", "ENG1", 3, "First Year Writing"],
    ["ENGL 1B", "ENG2", 3, "Argument and Analysis"],
    ["MATH 30", "CALC1", 3, "Calculus I"],
    ["MATH 31", "CALC2", 4, "Calculus II"],
    ["MATH 32", "CALC3", 3, "Calculus III"],
    ["MATH 39", "LINALG", 3, "Linear Theory"],
    ["STAT 95", "STATS", 3, "Elementary Statistics"],
    ["CHEM 1A", "CHEM1", 5, "General Chemistry"],
    ["CHEM 1B", "CHEM2", 5, "General Chemistry"],
    ["PHYS 50", "PHYS1", 4, "General Physics/Mechanics"],
    ["BIOL 30", "BIO1", 4, "Principles of Biology I"],
    ["CS 46A", "CS1", 4, "Introduction to Programming"],
    ["CS 46B", "CS2", 4, "Introduction to Data Structures"],
    ["PSYC 1", "PSY", 3, "General Psychology"],
    ["ECON 1A", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON 1B", "MICROECON", 3, "Principles of Microeconomics"],
    ["HIST 15", "USH1", 3, "Essentials of U.S. History"],
    ["POLS 15", "GOVT", 3, "Essentials of U.S. and California Government"],
    ["COMM 20", "COMM", 3, "Public Speaking"],
    ["CS 146", "ALGO", 3, "Data Structures and Algorithms"],
  ]),
  inst("110583", "California State University-Long Beach", "Long Beach", "CA", "four_year_public", CSU, "direct", "Cal State Long Beach", "Articulation Office, Cal State Long Beach", [
    ["ENGL 100", "ENG1", 3, "Composition I"],
    ["MATH 122", "CALC1", 4, "Calculus I"],
    ["MATH 123", "CALC2", 4, "Calculus II"],
    ["MATH 224", "CALC3", 4, "Calculus III"],
    ["STAT 108", "STATS", 3, "Statistics for Everyday Life"],
    ["CHEM 111A", "CHEM1", 5, "General Chemistry"],
    ["CHEM 111B", "CHEM2", 5, "General Chemistry"],
    ["PHYS 151", "PHYS1", 4, "Mechanics and Heat"],
    ["BIOL 211", "BIO2", 4, "Introduction to Evolution and Diversity"],
    ["CECS 174", "CS1", 3, "Introduction to Programming and Problem Solving"],
    ["PSY 100", "PSY", 3, "General Psychology"],
    ["ECON 100", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON 101", "MICROECON", 3, "Principles of Microeconomics"],
    ["HIST 172", "USH1", 3, "Early American History"],
    ["POSC 100", "GOVT", 3, "American Government"],
    ["COMM 130", "COMM", 3, "Essentials of Public Speaking"],
    ["SOC 100", "SOC", 3, "Principles of Sociology"],
  ]),
  inst("122409", "San Diego State University", "San Diego", "CA", "four_year_public", CSU, "direct", "San Diego State University", "Articulation Office, San Diego State University", [
    ["RWS 100", "ENG1", 3, "Rhetoric of Written Argument"],
    ["RWS 200", "ENG2", 3, "Rhetoric of Written Arguments in Context"],
    ["MATH 150", "CALC1", 5, "Calculus I"],
    ["MATH 151", "CALC2", 4, "Calculus II"],
    ["MATH 252", "CALC3", 4, "Calculus III"],
    ["MATH 254", "LINALG", 3, "Introduction to Linear Algebra"],
    ["STAT 119", "STATS", 3, "Elementary Statistics for Business"],
    ["CHEM 200", "CHEM1", 5, "General Chemistry"],
    ["CHEM 201", "CHEM2", 5, "General Chemistry and Qualitative Analysis"],
    ["PHYS 195", "PHYS1", 3, "Principles of Physics"],
    ["BIOL 203", "BIO1", 3, "Principles of Cell and Molecular Biology"],
    ["CS 150", "CS1", 3, "Introduction to Computer Programming"],
    ["CS 160", "CS2", 3, "Intermediate Computer Programming"],
    ["PSY 101", "PSY", 3, "Introductory Psychology"],
    ["ECON 101", "MACRO", 3, "Principles of Economics"],
    ["ECON 102", "MICROECON", 3, "Principles of Economics"],
    ["HIST 109", "USH1", 3, "American Civilization"],
    ["POL S 102", "GOVT", 3, "Introduction to American Politics"],
    ["SOC 101", "SOC", 3, "Introductory Principles of Sociology"],
  ]),
  inst("243744", "Stanford University", "Stanford", "CA", "four_year_private", null, "channel_a", "Stanford", "Office of the University Registrar, Stanford University", [
    ["PWR 1", "ENG1", 4, "Writing and Rhetoric 1"],
    ["MATH 19", "CALC1", 3, "Calculus"],
    ["MATH 20", "CALC2", 3, "Calculus"],
    ["MATH 51", "LINALG", 5, "Linear Algebra, Multivariable Calculus, and Modern Applications"],
    ["CHEM 31A", "CHEM1", 5, "Chemical Principles I"],
    ["PHYSICS 41", "PHYS1", 4, "Mechanics"],
    ["CS 106A", "CS1", 5, "Programming Methodology"],
    ["CS 106B", "CS2", 5, "Programming Abstractions"],
    ["PSYCH 1", "PSY", 5, "Introduction to Psychology"],
    ["ECON 1", "MICROECON", 5, "Principles of Economics"],
    ["CS 161", "ALGO", 5, "Design and Analysis of Algorithms"],
    ["COLLEGE 101", "SEMINAR", 3, "Why College? Your Education and the Good Life"],
  ]),
  inst("123961", "University of Southern California", "Los Angeles", "CA", "four_year_private", null, "channel_b", "USC", "Degree Progress, University of Southern California", [
    ["WRIT 150", "ENG1", 4, "Writing and Critical Reasoning"],
    ["MATH 125", "CALC1", 4, "Calculus I"],
    ["MATH 126", "CALC2", 4, "Calculus II"],
    ["MATH 226", "CALC3", 4, "Calculus III"],
    ["CHEM 105A", "CHEM1", 4, "General Chemistry"],
    ["PHYS 151", "PHYS1", 4, "Fundamentals of Physics I: Mechanics and Thermodynamics"],
    ["BISC 120", "BIO2", 4, "General Biology: Organismal Biology and Evolution"],
    ["CSCI 103", "CS1", 4, "Introduction to Programming"],
    ["CSCI 104", "CS2", 4, "Data Structures and Object Oriented Design"],
    ["PSYC 100", "PSY", 4, "Introduction to Psychology"],
    ["ECON 203", "MICROECON", 4, "Principles of Microeconomics"],
    ["ECON 205", "MACRO", 4, "Principles of Macroeconomics"],
  ]),

  // ---------------------------------------------------------------------- Texas
  inst("228547", "Tarrant County College District", "Fort Worth", "TX", "community_college", null, "direct", "Tarrant County College", "", [
    ["ENGL 1301", "ENG1", 3, "Composition I"],
    ["ENGL 1302", "ENG2", 3, "Composition II"],
    ["MATH 1314", "COLALG", 3, "College Algebra"],
    ["MATH 2413", "CALC1", 4, "Calculus I"],
    ["MATH 2414", "CALC2", 4, "Calculus II"],
    ["MATH 2415", "CALC3", 4, "Calculus III"],
    ["MATH 1342", "STATS", 3, "Elementary Statistical Methods"],
    ["CHEM 1311", "CHEM1", 3, "General Chemistry I (Lecture)"],
    ["CHEM 1111", "CHEM1L", 1, "General Chemistry I (Laboratory)"],
    ["CHEM 1312", "CHEM2", 3, "General Chemistry II (Lecture)"],
    ["BIOL 1306", "BIO1", 3, "Biology for Science Majors I (Lecture)"],
    ["BIOL 1106", "BIO1L", 1, "Biology for Science Majors I (Laboratory)"],
    ["PHYS 2425", "PHYS1", 4, "University Physics I"],
    ["COSC 1436", "CS1", 4, "Programming Fundamentals I"],
    ["COSC 1437", "CS2", 4, "Programming Fundamentals II"],
    ["PSYC 2301", "PSY", 3, "General Psychology"],
    ["GOVT 2305", "GOVT", 3, "Federal Government"],
    ["HIST 1301", "USH1", 3, "United States History I"],
    ["HIST 1302", "USH2", 3, "United States History II"],
    ["ECON 2301", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON 2302", "MICROECON", 3, "Principles of Microeconomics"],
    ["SPCH 1315", "COMM", 3, "Public Speaking"],
    ["ACCT 2301", "ACCT1", 3, "Principles of Financial Accounting"],
    ["EDUC 1300", "LEARNFW", 3, "Learning Framework"],
  ]),
  inst("227854", "St Philip's College", "San Antonio", "TX", "community_college", "Alamo Colleges", "channel_a", "St. Philip's College", "", [
    ["ENGL 1301", "ENG1", 3, "Composition I"],
    ["ENGL 1302", "ENG2", 3, "Composition II"],
    ["MATH 1314", "COLALG", 3, "College Algebra"],
    ["MATH 2413", "CALC1", 4, "Calculus I"],
    ["MATH 2414", "CALC2", 4, "Calculus II"],
    ["MATH 1342", "STATS", 3, "Elementary Statistical Methods"],
    ["CHEM 1311", "CHEM1", 3, "General Chemistry I (Lecture)"],
    ["CHEM 1111", "CHEM1L", 1, "General Chemistry I (Laboratory)"],
    ["BIOL 1406", "BIO1", 4, "Biology for Science Majors I"],
    ["BIOL 2401", "AP1", 4, "Anatomy and Physiology I"],
    ["BIOL 2421", "MICRO", 4, "Microbiology for Science Majors"],
    ["PSYC 2301", "PSY", 3, "General Psychology"],
    ["PSYC 2314", "DEVPSY", 3, "Lifespan Growth and Development"],
    ["GOVT 2305", "GOVT", 3, "Federal Government"],
    ["HIST 1301", "USH1", 3, "United States History I"],
    ["ECON 2301", "MACRO", 3, "Principles of Macroeconomics"],
    ["COSC 1436", "CS1", 4, "Programming Fundamentals I"],
    ["SPCH 1311", "COMM", 3, "Introduction to Speech Communication"],
    ["SOCI 1301", "SOC", 3, "Introduction to Sociology"],
    ["EDUC 1300", "LEARNFW", 3, "Learning Framework"],
  ]),
  inst("224642", "El Paso Community College", "El Paso", "TX", "community_college", null, "channel_a", "El Paso Community College", "", [
    ["ENGL 1301", "ENG1", 3, "Composition I"],
    ["ENGL 1302", "ENG2", 3, "Composition II"],
    ["MATH 2413", "CALC1", 4, "Calculus I"],
    ["MATH 2414", "CALC2", 4, "Calculus II"],
    ["MATH 2415", "CALC3", 4, "Calculus III"],
    ["MATH 2318", "LINALG", 3, "Linear Algebra"],
    ["MATH 1342", "STATS", 3, "Elementary Statistical Methods"],
    ["CHEM 1311", "CHEM1", 3, "General Chemistry I (Lecture)"],
    ["CHEM 1111", "CHEM1L", 1, "General Chemistry I (Laboratory)"],
    ["CHEM 1312", "CHEM2", 3, "General Chemistry II (Lecture)"],
    ["PHYS 2425", "PHYS1", 4, "University Physics I"],
    ["PHYS 2426", "PHYS2", 4, "University Physics II"],
    ["BIOL 1406", "BIO1", 4, "Biology for Science Majors I"],
    ["COSC 1436", "CS1", 4, "Programming Fundamentals I"],
    ["COSC 1437", "CS2", 4, "Programming Fundamentals II"],
    ["PSYC 2301", "PSY", 3, "General Psychology"],
    ["GOVT 2305", "GOVT", 3, "Federal Government"],
    ["HIST 1301", "USH1", 3, "United States History I"],
    ["HIST 1302", "USH2", 3, "United States History II"],
    ["ECON 2302", "MICROECON", 3, "Principles of Microeconomics"],
    ["SPAN 1411", "SPAN1", 4, "Beginning Spanish I"],
    ["SOCI 1301", "SOC", 3, "Introduction to Sociology"],
    ["ENGR 1201", "ENGR", 2, "Introduction to Engineering"],
    ["EDUC 1300", "LEARNFW", 3, "Learning Framework"],
  ]),
  inst("223427", "Blinn College District", "Brenham", "TX", "community_college", null, "channel_b", "Blinn College", "", [
    ["ENGL 1301", "ENG1", 3, "Composition I"],
    ["ENGL 1302", "ENG2", 3, "Composition II"],
    ["MATH 2413", "CALC1", 4, "Calculus I"],
    ["MATH 2414", "CALC2", 4, "Calculus II"],
    ["MATH 2415", "CALC3", 4, "Calculus III"],
    ["MATH 1342", "STATS", 3, "Elementary Statistical Methods"],
    ["CHEM 1311", "CHEM1", 3, "General Chemistry I (Lecture)"],
    ["CHEM 1111", "CHEM1L", 1, "General Chemistry I (Laboratory)"],
    ["CHEM 1312", "CHEM2", 3, "General Chemistry II (Lecture)"],
    ["PHYS 2425", "PHYS1", 4, "University Physics I"],
    ["BIOL 1306", "BIO1", 3, "Biology for Science Majors I (Lecture)"],
    ["BIOL 1106", "BIO1L", 1, "Biology for Science Majors I (Laboratory)"],
    ["ENGR 1201", "ENGR", 2, "Introduction to Engineering"],
    ["ENGR 2301", "STATICS", 3, "Engineering Mechanics - Statics"],
    ["COSC 1436", "CS1", 4, "Programming Fundamentals I"],
    ["PSYC 2301", "PSY", 3, "General Psychology"],
    ["GOVT 2305", "GOVT", 3, "Federal Government"],
    ["HIST 1301", "USH1", 3, "United States History I"],
    ["HIST 1302", "USH2", 3, "United States History II"],
    ["ECON 2301", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON 2302", "MICROECON", 3, "Principles of Microeconomics"],
    ["ACCT 2301", "ACCT1", 3, "Principles of Financial Accounting"],
    ["ACCT 2302", "ACCT2", 3, "Principles of Managerial Accounting"],
  ]),
  inst("228778", "The University of Texas at Austin", "Austin", "TX", "four_year_public", "The University of Texas System", "direct", "UT Austin", "Office of Admissions Transfer Evaluation, UT Austin", [
    ["RHE 306", "ENG1", 3, "Rhetoric and Writing"],
    ["M 408K", "CALC1", 4, "Differential Calculus"],
    ["M 408L", "CALC2", 4, "Integral Calculus"],
    ["M 408M", "CALC3", 4, "Multivariable Calculus"],
    ["M 340L", "LINALG", 3, "Matrices and Matrix Calculations", "U"],
    ["SDS 320E", "STATS", 3, "Elements of Statistics", "U"],
    ["CH 301", "CHEM1", 3, "Principles of Chemistry I"],
    ["CH 204", "CHEM1L", 2, "Introduction to Chemical Practice"],
    ["CH 302", "CHEM2", 3, "Principles of Chemistry II"],
    ["PHY 303K", "PHYS1", 3, "Engineering Physics I"],
    ["BIO 311C", "BIO1", 3, "Introductory Biology I"],
    ["C S 312", "CS1", 3, "Introduction to Programming"],
    ["C S 314", "CS2", 3, "Data Structures"],
    ["PSY 301", "PSY", 3, "Introduction to Psychology"],
    ["GOV 310L", "GOVT", 3, "American Government"],
    ["HIS 315K", "USH1", 3, "The United States, 1492-1865"],
    ["HIS 315L", "USH2", 3, "The United States since 1865"],
    ["ECO 304K", "MICROECON", 3, "Introduction to Microeconomics"],
    ["ECO 304L", "MACRO", 3, "Introduction to Macroeconomics"],
    ["CMS 306M", "COMM", 3, "Professional Communication Skills"],
    ["C S 331", "ALGO", 3, "Algorithms and Complexity"],
    ["UGS 302", "SEMINAR", 3, "First-Year Signature Course"],
  ]),
  inst("228723", "Texas A & M University-College Station", "College Station", "TX", "four_year_public", "Texas A&M University System", "channel_a", "Texas A&M", "Transfer Credit Evaluation, Texas A&M University", [
    ["ENGL 104", "ENG1", 3, "Composition and Rhetoric"],
    ["MATH 151", "CALC1", 4, "Engineering Mathematics I"],
    ["MATH 152", "CALC2", 4, "Engineering Mathematics II"],
    ["MATH 251", "CALC3", 3, "Engineering Mathematics III"],
    ["MATH 304", "LINALG", 3, "Linear Algebra", "U"],
    ["STAT 201", "STATS", 3, "Elementary Statistical Inference"],
    ["CHEM 119", "CHEM1", 4, "Fundamentals of Chemistry I"],
    ["CHEM 120", "CHEM2", 4, "Fundamentals of Chemistry II"],
    ["PHYS 206", "PHYS1", 3, "Newtonian Mechanics for Engineering and Science"],
    ["BIOL 111", "BIO1", 4, "Introductory Biology I"],
    ["CSCE 121", "CS1", 4, "Introduction to Program Design and Concepts"],
    ["CSCE 221", "CS2", 4, "Data Structures and Algorithms"],
    ["PSYC 107", "PSY", 3, "General Psychology"],
    ["POLS 206", "GOVT", 3, "American National Government"],
    ["HIST 105", "USH1", 3, "History of the United States"],
    ["HIST 106", "USH2", 3, "History of the United States"],
    ["ECON 202", "MICROECON", 3, "Principles of Economics"],
    ["ECON 203", "MACRO", 3, "Principles of Economics"],
    ["ENGR 102", "ENGR", 2, "Engineering Lab I - Computation"],
    ["CVEN 221", "STATICS", 3, "Statics and Particle Dynamics"],
    ["ACCT 229", "ACCT1", 3, "Introductory Accounting - Financial"],
    ["COMM 203", "COMM", 3, "Public Speaking"],
  ]),
  inst("225511", "University of Houston", "Houston", "TX", "four_year_public", "University of Houston System", "channel_b", "University of Houston", "Office of the University Registrar, University of Houston", [
    ["ENGL 1301", "ENG1", 3, "First Year Writing I"],
    ["ENGL 1302", "ENG2", 3, "First Year Writing II"],
    ["MATH 2413", "CALC1", 4, "Calculus I"],
    ["MATH 2414", "CALC2", 4, "Calculus II"],
    ["MATH 2415", "CALC3", 4, "Calculus III"],
    ["MATH 3339", "STATS", 3, "Statistics for the Sciences", "U"],
    ["CHEM 1311", "CHEM1", 3, "Fundamentals of Chemistry"],
    ["CHEM 1111", "CHEM1L", 1, "Fundamentals of Chemistry Laboratory"],
    ["CHEM 1312", "CHEM2", 3, "Fundamentals of Chemistry II"],
    ["PHYS 1321", "PHYS1", 3, "University Physics I"],
    ["BIOL 1306", "BIO1", 3, "Biology for Science Majors I"],
    ["BIOL 1106", "BIO1L", 1, "Biology for Science Majors I Laboratory"],
    ["COSC 1336", "CS1", 3, "Computer Science and Programming"],
    ["COSC 1437", "CS2", 4, "Introduction to Programming"],
    ["PSYC 1300", "PSY", 3, "Introduction to Psychology"],
    ["POLS 1336", "GOVT", 3, "US and Texas Constitution and Politics"],
    ["HIST 1301", "USH1", 3, "The United States to 1877"],
    ["HIST 1302", "USH2", 3, "The United States since 1877"],
    ["ECON 2301", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON 2302", "MICROECON", 3, "Principles of Microeconomics"],
    ["ACCT 2331", "ACCT1", 3, "Accounting Principles 1 - Financial"],
    ["COMM 1332", "COMM", 3, "Business and Professional Speaking"],
  ]),
  inst("228459", "Texas State University", "San Marcos", "TX", "four_year_public", "Texas State University System", "channel_b", "Texas State University", "Transfer Evaluation, Texas State University", [
    ["ENG 1310", "ENG1", 3, "College Writing I"],
    ["ENG 1320", "ENG2", 3, "College Writing II"],
    ["MATH 2471", "CALC1", 4, "Calculus I"],
    ["MATH 2472", "CALC2", 4, "Calculus II"],
    ["MATH 2328", "STATS", 3, "Elementary Statistics"],
    ["CHEM 1341", "CHEM1", 3, "General Chemistry I"],
    ["CHEM 1141", "CHEM1L", 1, "General Chemistry I Laboratory"],
    ["CHEM 1342", "CHEM2", 3, "General Chemistry II"],
    ["PHYS 2425", "PHYS1", 4, "University Physics I"],
    ["BIO 1330", "BIO1", 3, "Functional Biology"],
    ["BIO 1130", "BIO1L", 1, "Functional Biology Laboratory"],
    ["CS 1428", "CS1", 4, "Foundations of Computer Science I"],
    ["CS 2308", "CS2", 3, "Foundations of Computer Science II"],
    ["PSY 1300", "PSY", 3, "Introduction to Psychology"],
    ["POSI 2310", "GOVT", 3, "Principles of American Government"],
    ["HIST 1310", "USH1", 3, "History of the United States to 1877"],
    ["HIST 1320", "USH2", 3, "History of the United States, 1877 to Date"],
    ["ECO 2314", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECO 2315", "MICROECON", 3, "Principles of Microeconomics"],
    ["COMM 1310", "COMM", 3, "Fundamentals of Human Communication"],
    ["ACC 2361", "ACCT1", 3, "Introduction to Financial Accounting"],
    ["ACC 2362", "ACCT2", 3, "Introduction to Managerial Accounting"],
    ["SOCI 1310", "SOC", 3, "Introduction to Sociology"],
    ["US 1100", "FYE", 1, "University Seminar"],
  ]),
  inst("227757", "Rice University", "Houston", "TX", "four_year_private", null, "direct", "Rice University", "Office of the Registrar, Rice University", [
    ["MATH 101", "CALC1", 3, "Single Variable Calculus I"],
    ["MATH 102", "CALC2", 3, "Single Variable Calculus II"],
    ["CHEM 121", "CHEM1", 3, "General Chemistry I"],
    ["PHYS 101", "PHYS1", 3, "Mechanics"],
    ["COMP 140", "CS1", 4, "Computational Thinking"],
    ["PSYC 101", "PSY", 3, "Introduction to Psychology"],
    ["ECON 100", "MICROECON", 3, "Principles of Economics"],
  ]),
  inst("228246", "Southern Methodist University", "Dallas", "TX", "four_year_private", null, "channel_a", "SMU", "Office of the Registrar, Southern Methodist University", [
    ["DISC 1312", "ENG1", 3, "Inquiry Seminar: Discernment and Discourse"],
    ["MATH 1337", "CALC1", 3, "Calculus with Analytic Geometry I"],
    ["MATH 1338", "CALC2", 3, "Calculus with Analytic Geometry II"],
    ["CHEM 1303", "CHEM1", 3, "General Chemistry"],
    ["CS 1341", "CS1", 3, "Principles of Computer Science I"],
    ["PSYC 1300", "PSY", 3, "Introduction to Psychology"],
    ["ECO 1311", "MICROECON", 3, "Principles of Microeconomics"],
    ["ECO 1312", "MACRO", 3, "Principles of Macroeconomics"],
  ]),

  // -------------------------------------------------------------------- Florida
  inst("134130", "University of Florida", "Gainesville", "FL", "four_year_public", SUSF, "channel_b", "University of Florida", "Office of the University Registrar, University of Florida", [
    ["ENC 1101", "ENG1", 3, "Expository and Argumentative Writing"],
    ["ENC 1102", "ENG2", 3, "Argument and Persuasion"],
    ["MAC 2311", "CALC1", 4, "Analytic Geometry and Calculus 1"],
    ["MAC 2312", "CALC2", 4, "Analytic Geometry and Calculus 2"],
    ["MAC 2313", "CALC3", 4, "Analytic Geometry and Calculus 3"],
    ["MAS 3114", "LINALG", 3, "Computational Linear Algebra", "U"],
    ["STA 2023", "STATS", 3, "Introduction to Statistics 1"],
    ["CHM 2045", "CHEM1", 3, "General Chemistry 1"],
    ["CHM 2045L", "CHEM1L", 1, "General Chemistry 1 Laboratory"],
    ["CHM 2046", "CHEM2", 3, "General Chemistry 2"],
    ["CHM 2210", "OCHEM1", 3, "Organic Chemistry 1"],
    ["PHY 2048", "PHYS1", 3, "Physics with Calculus 1"],
    ["BSC 2010", "BIO1", 3, "Integrated Principles of Biology 1"],
    ["COP 3502C", "CS1", 4, "Programming Fundamentals 1", "U"],
    ["COP 3503C", "CS2", 4, "Programming Fundamentals 2", "U"],
    ["PSY 2012", "PSY", 3, "General Psychology"],
    ["AMH 2010", "USH1", 3, "United States to 1877"],
    ["AMH 2020", "USH2", 3, "United States since 1877"],
    ["POS 2041", "GOVT", 3, "American Federal Government"],
    ["ECO 2013", "MACRO", 4, "Principles of Macroeconomics"],
    ["ECO 2023", "MICROECON", 4, "Principles of Microeconomics"],
    ["PCB 3063", "GENETICS", 4, "Genetics"],
    ["SPC 2608", "COMM", 3, "Introduction to Public Speaking"],
    ["ACG 2021", "ACCT1", 4, "Introduction to Financial Accounting"],
    ["IUF 1000", "SEMINAR", 3, "What Is the Good Life"],
  ]),
  inst("132903", "University of Central Florida", "Orlando", "FL", "four_year_public", SUSF, "direct", "UCF", "Transfer Credit Evaluation, University of Central Florida", [
    ["ENC 1101", "ENG1", 3, "Composition I"],
    ["ENC 1102", "ENG2", 3, "Composition II"],
    ["MAC 2311C", "CALC1", 4, "Calculus with Analytic Geometry I"],
    ["MAC 2312", "CALC2", 4, "Calculus with Analytic Geometry II"],
    ["MAC 2313", "CALC3", 4, "Calculus with Analytic Geometry III"],
    ["STA 2023", "STATS", 3, "Statistical Methods I"],
    ["CHM 2045C", "CHEM1", 4, "Chemistry Fundamentals I"],
    ["CHM 2046", "CHEM2", 3, "Chemistry Fundamentals II"],
    ["PHY 2048C", "PHYS1", 4, "Physics for Engineers and Scientists I"],
    ["BSC 2010C", "BIO1", 4, "Biology I"],
    ["COP 3223C", "CS1", 3, "Introduction to Programming with C", "U"],
    ["COP 3502C", "CS2", 3, "Computer Science I", "U"],
    ["PSY 2012", "PSY", 3, "General Psychology"],
    ["AMH 2010", "USH1", 3, "U.S. History: 1492-1877"],
    ["POS 2041", "GOVT", 3, "American National Government"],
    ["ECO 2013", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECO 2023", "MICROECON", 3, "Principles of Microeconomics"],
    ["PCB 3063", "GENETICS", 3, "Genetics"],
    ["SPC 1608", "COMM", 3, "Fundamentals of Oral Communication"],
    ["IDH 1920", "SEMINAR", 1, "Honors Symposium"],
  ]),
  inst("134097", "Florida State University", "Tallahassee", "FL", "four_year_public", SUSF, "direct", "Florida State University", "Office of the Registrar, Florida State University", [
    ["ENC 1101", "ENG1", 3, "Freshman Composition and Rhetoric"],
    ["ENC 2135", "ENG2", 3, "Research, Genre, and Context"],
    ["MAC 2311", "CALC1", 4, "Calculus with Analytic Geometry I"],
    ["MAC 2312", "CALC2", 4, "Calculus with Analytic Geometry II"],
    ["STA 2023", "STATS", 3, "Fundamental Business Statistics"],
    ["CHM 1045", "CHEM1", 3, "General Chemistry I"],
    ["CHM 1045L", "CHEM1L", 1, "General Chemistry I Laboratory"],
    ["CHM 1046", "CHEM2", 3, "General Chemistry II"],
    ["PHY 2048C", "PHYS1", 5, "General Physics A"],
    ["BSC 2010", "BIO1", 3, "Biological Science I"],
    ["COP 3014", "CS1", 3, "Programming I", "U"],
    ["PSY 2012", "PSY", 3, "General Psychology"],
    ["AMH 2010", "USH1", 3, "United States History to 1877"],
    ["POS 1041", "GOVT", 3, "American Government: National"],
    ["ECO 2013", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECO 2023", "MICROECON", 3, "Principles of Microeconomics"],
    ["PCB 3063", "GENETICS", 3, "Genetics"],
  ]),
  inst("133951", "Florida International University", "Miami", "FL", "four_year_public", SUSF, "channel_a", "FIU", "Office of the Registrar, Florida International University", [
    ["ENC 1101", "ENG1", 3, "Writing and Rhetoric I"],
    ["ENC 1102", "ENG2", 3, "Writing and Rhetoric II"],
    ["MAC 2311", "CALC1", 4, "Calculus I"],
    ["MAC 2312", "CALC2", 4, "Calculus II"],
    ["STA 2023", "STATS", 3, "Statistics for Business and Economics"],
    ["CHM 1045", "CHEM1", 3, "General Chemistry I"],
    ["PHY 2048", "PHYS1", 4, "Physics with Calculus I"],
    ["BSC 2010", "BIO1", 3, "General Biology I"],
    ["COP 2210", "CS1", 4, "Programming I"],
    ["COP 3337", "CS2", 3, "Intermediate Programming", "U"],
    ["PSY 2012", "PSY", 3, "Introduction to Psychology"],
    ["AMH 2020", "USH2", 3, "American History since 1877"],
    ["POS 2041", "GOVT", 3, "American Government"],
    ["ECO 2013", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECO 2023", "MICROECON", 3, "Principles of Microeconomics"],
    ["SLS 1501", "FYE", 1, "First Year Experience"],
  ]),
  inst("137351", "University of South Florida", "Tampa", "FL", "four_year_public", SUSF, "channel_b", "USF", "Office of the Registrar, University of South Florida", [
    ["ENC 1101", "ENG1", 3, "Composition I"],
    ["ENC 1102", "ENG2", 3, "Composition II"],
    ["MAC 2311", "CALC1", 4, "Calculus I"],
    ["MAC 2312", "CALC2", 4, "Calculus II"],
    ["STA 2023", "STATS", 3, "Introductory Statistics I"],
    ["CHM 2045", "CHEM1", 3, "General Chemistry I"],
    ["PHY 2048", "PHYS1", 3, "General Physics I - Calculus Based"],
    ["BSC 2010", "BIO1", 3, "Cellular Processes"],
    ["COP 2510", "CS1", 3, "Programming Concepts"],
    ["PSY 2012", "PSY", 3, "Introduction to Psychological Science"],
    ["AMH 2010", "USH1", 3, "American History I"],
    ["POS 2041", "GOVT", 3, "American National Government"],
    ["ECO 2013", "MACRO", 3, "Economic Principles (Macroeconomics)"],
    ["ECO 2023", "MICROECON", 3, "Economic Principles (Microeconomics)"],
    ["PCB 3063", "GENETICS", 3, "General Genetics"],
    ["IDH 2010", "SEMINAR", 3, "Acquisition of Knowledge"],
  ]),
  inst("135726", "University of Miami", "Coral Gables", "FL", "four_year_private", null, "direct", "University of Miami", "Office of the Registrar, University of Miami", [
    ["WRS 105", "ENG1", 3, "First-Year Writing I"],
    ["MTH 161", "CALC1", 4, "Calculus I"],
    ["CHM 121", "CHEM1", 3, "Principles of Chemistry"],
    ["PHY 221", "PHYS1", 3, "University Physics I"],
    ["CSC 120", "CS1", 3, "Computing for Scientists"],
    ["PSY 110", "PSY", 3, "Introduction to Psychology"],
    ["ECO 211", "MICROECON", 3, "Economic Principles and Problems"],
  ]),
  inst("136950", "Rollins College", "Winter Park", "FL", "four_year_private", null, "channel_a", "Rollins College", "Office of the Registrar, Rollins College", [
    ["MAT 111", "CALC1", 4, "Calculus I"],
    ["CHM 120", "CHEM1", 4, "General Chemistry I"],
    ["CMS 167", "CS1", 4, "Problem Solving I"],
    ["PSY 100", "PSY", 4, "Introduction to Psychology"],
    ["ECO 202", "MICROECON", 4, "Principles of Microeconomics"],
    ["RCC 100", "SEMINAR", 4, "Rollins College Conference"],
  ]),

  // ------------------------------------------------------------------- New York
  inst("190521", "CUNY Borough of Manhattan Community College", "New York", "NY", "community_college", CUNY, "channel_a", "BMCC", "", [
    ["ENG 101", "ENG1", 3, "English Composition"],
    ["ENG 201", "LIT", 3, "Introduction to Literature"],
    ["MAT 206", "PRECALC", 4, "Precalculus"],
    ["MAT 301", "CALC1", 4, "Analytic Geometry and Calculus I"],
    ["MAT 302", "CALC2", 4, "Analytic Geometry and Calculus II"],
    ["MAT 303", "CALC3", 4, "Analytic Geometry and Calculus III"],
    ["MAT 209", "STATS", 4, "Statistics"],
    ["CHE 201", "CHEM1", 4, "College Chemistry I"],
    ["CHE 202", "CHEM2", 4, "College Chemistry II"],
    ["PHY 215", "PHYS1", 4, "University Physics I"],
    ["BIO 210", "BIO1", 4, "Biology I"],
    ["CSC 111", "CS1", 4, "Introduction to Programming"],
    ["CSC 211", "CS2", 3, "Advanced Programming Techniques"],
    ["PSY 100", "PSY", 3, "General Psychology"],
    ["ECO 201", "MACRO", 3, "Macroeconomics"],
    ["ECO 202", "MICROECON", 3, "Microeconomics"],
    ["SPE 100", "COMM", 3, "Fundamentals of Speech"],
    ["ACC 122", "ACCT1", 4, "Accounting Principles I"],
    ["SOC 100", "SOC", 3, "Introduction to Sociology"],
    ["CRJ 101", "CRIM", 3, "Introduction to Criminal Justice"],
  ]),
  inst("190628", "CUNY LaGuardia Community College", "Long Island City", "NY", "community_college", CUNY, "channel_b", "LaGuardia Community College", "", [
    ["ENG 101", "ENG1", 3, "Composition I: An Introduction to Expository Writing"],
    ["ENG 102", "ENG2", 3, "Writing Through Literature"],
    ["MAT 115", "PRECALC", 3, "College Algebra and Trigonometry"],
    ["MAT 201", "CALC1", 4, "Calculus I"],
    ["MAT 202", "CALC2", 4, "Calculus II"],
    ["MAT 120", "STATS", 3, "Elementary Statistics I"],
    ["SCC 201", "CHEM1", 4, "General Chemistry I"],
    ["SCB 201", "BIO1", 4, "Fundamentals of Biology I"],
    ["SCB 203", "AP1", 4, "Human Anatomy and Physiology I"],
    ["SSY 101", "PSY", 3, "General Psychology"],
    ["SSY 240", "DEVPSY", 3, "Developmental Psychology I"],
    ["SSE 103", "MACRO", 3, "Introduction to Macroeconomics"],
    ["SSS 100", "SOC", 3, "Introduction to Sociology"],
    ["HUC 101", "COMM", 3, "Fundamentals of Speech Communication"],
    ["MAC 101", "CS1", 3, "Introduction to Computer Science"],
  ]),
  inst("191719", "Hudson Valley Community College", "Troy", "NY", "community_college", SUNY, "direct", "Hudson Valley Community College", "", [
    ["ENGL 101", "ENG1", 3, "English Composition I"],
    ["ENGL 102", "ENG2", 3, "English Composition II"],
    ["MATH 180", "CALC1", 4, "Calculus I"],
    ["MATH 190", "CALC2", 4, "Calculus II"],
    ["MATH 200", "CALC3", 4, "Calculus III"],
    ["MATH 160", "STATS", 3, "Introduction to Statistics"],
    ["CHEM 130", "CHEM1", 4, "General Chemistry I"],
    ["CHEM 140", "CHEM2", 4, "General Chemistry II"],
    ["PHYS 150", "PHYS1", 4, "Physics I: Calculus-Based Mechanics"],
    ["BIOL 111", "BIO1", 4, "General Biology I"],
    ["CISS 110", "CS1", 3, "Programming and Logic I"],
    ["PSYC 100", "PSY", 3, "General Psychology"],
    ["ECON 100", "MACRO", 3, "Macroeconomics"],
    ["ECON 101", "MICROECON", 3, "Microeconomics"],
    ["HIST 101", "USH1", 3, "United States History I"],
    ["SOCI 100", "SOC", 3, "Introduction to Sociology"],
    ["CRJS 101", "CRIM", 3, "Introduction to Criminal Justice"],
    ["ACCT 110", "ACCT1", 4, "Financial Accounting"],
    ["FORT 101", "FYE", 1, "First-Year Seminar"],
  ]),
  inst("193326", "Monroe Community College", "Rochester", "NY", "community_college", SUNY, "channel_a", "Monroe Community College", "", [
    ["ENG 101", "ENG1", 3, "College Composition"],
    ["ENG 200", "ENG2", 3, "Advanced Composition"],
    ["MTH 210", "CALC1", 4, "Calculus I"],
    ["MTH 211", "CALC2", 4, "Calculus II"],
    ["MTH 212", "CALC3", 4, "Calculus III"],
    ["MTH 160", "STATS", 3, "Statistics I"],
    ["CHE 151", "CHEM1", 4, "General Chemistry I"],
    ["CHE 152", "CHEM2", 4, "General Chemistry II"],
    ["PHY 161", "PHYS1", 4, "University Physics I"],
    ["BIO 155", "BIO1", 4, "General Biology I"],
    ["CSC 101", "CS1", 4, "Introduction to Computer Science"],
    ["CSC 202", "CS2", 4, "Data Structures"],
    ["PSY 101", "PSY", 3, "Introduction to Psychology"],
    ["ECO 101", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECO 102", "MICROECON", 3, "Principles of Microeconomics"],
    ["HIS 104", "USH1", 3, "United States History I"],
    ["POS 101", "GOVT", 3, "American National Government"],
    ["FYE 100", "FYE", 1, "First Year Experience Seminar"],
  ]),
  inst("190594", "CUNY Hunter College", "New York", "NY", "four_year_public", CUNY, "channel_b", "Hunter College", "Transfer Credit Evaluation, Hunter College", [
    ["ENGL 12000", "ENG1", 3, "Expository Writing"],
    ["MATH 15000", "CALC1", 4, "Calculus I"],
    ["MATH 15500", "CALC2", 4, "Calculus II"],
    ["MATH 25000", "CALC3", 4, "Calculus III"],
    ["STAT 11300", "STATS", 3, "Elementary Probability and Statistics"],
    ["CHEM 10200", "CHEM1", 4, "General Chemistry I"],
    ["PHYS 11000", "PHYS1", 4, "General Physics I"],
    ["BIOL 10000", "BIO1", 4, "Principles of Biology I"],
    ["CSCI 12700", "CS1", 3, "Introduction to Computer Science"],
    ["CSCI 13500", "CS2", 4, "Software Analysis and Design I"],
    ["PSYCH 15000", "PSY", 3, "General Psychology"],
    ["ECO 10000", "MACRO", 3, "Introduction to Economics"],
    ["SOC 10100", "SOC", 3, "Introduction to Sociology"],
    ["POLSC 11000", "GOVT", 3, "American Politics"],
  ]),
  inst("190512", "CUNY Bernard M Baruch College", "New York", "NY", "four_year_public", CUNY, "channel_b", "Baruch College", "Office of the Registrar, Baruch College", [
    ["ENG 2100", "ENG1", 3, "Writing I"],
    ["ENG 2150", "ENG2", 3, "Writing II"],
    ["MTH 2610", "CALC1", 4, "Calculus I"],
    ["STA 2000", "STATS", 3, "Business Statistics I"],
    ["ECO 1001", "MICROECON", 3, "Micro-Economics"],
    ["ECO 1002", "MACRO", 3, "Macro-Economics"],
    ["PSY 1001", "PSY", 3, "General Psychology"],
    ["ACC 2101", "ACCT1", 3, "Principles of Accounting I"],
    ["ACC 2203", "ACCT2", 3, "Principles of Accounting II"],
    ["CIS 2300", "CS1", 3, "Programming and Computational Thinking"],
    ["COM 1010", "COMM", 3, "Speech Communication"],
    ["SOC 1005", "SOC", 3, "Introduction to Sociology"],
    ["ECO 3250", "INTMICRO", 3, "Intermediate Microeconomics"],
    ["FIN 3000", "FIN", 3, "Principles of Finance"],
    ["MKT 3000", "MKT", 3, "Marketing Foundations"],
  ]),
  inst("196088", "University at Buffalo", "Buffalo", "NY", "four_year_public", SUNY, "direct", "University at Buffalo", "Transfer Credit Services, University at Buffalo", [
    ["ENG 105", "ENG1", 4, "Writing and Rhetoric"],
    ["MTH 141", "CALC1", 4, "College Calculus 1"],
    ["MTH 142", "CALC2", 4, "College Calculus 2"],
    ["MTH 241", "CALC3", 4, "College Calculus 3"],
    ["STA 119", "STATS", 4, "Statistical Methods"],
    ["CHE 101", "CHEM1", 4, "General Chemistry"],
    ["CHE 102", "CHEM2", 4, "General Chemistry"],
    ["PHY 107", "PHYS1", 4, "General Physics I"],
    ["BIO 200", "BIO2", 4, "Evolutionary Biology"],
    ["CSE 115", "CS1", 4, "Introduction to Computer Science I"],
    ["CSE 116", "CS2", 4, "Introduction to Computer Science II"],
    ["PSY 101", "PSY", 3, "Introductory Psychology"],
    ["ECO 181", "MACRO", 3, "Introduction to Macroeconomics"],
    ["ECO 182", "MICROECON", 3, "Introduction to Microeconomics"],
    ["SOC 101", "SOC", 3, "Introduction to Sociology"],
    ["CSE 331", "ALGO", 4, "Algorithms and Complexity"],
    ["PSY 322", "ABPSY", 3, "Abnormal Psychology"],
  ]),
  inst("196097", "Stony Brook University", "Stony Brook", "NY", "four_year_public", SUNY, "channel_a", "Stony Brook University", "Transfer Credit Evaluation, Stony Brook University", [
    ["WRT 102", "ENG1", 3, "Intermediate Writing Workshop"],
    ["MAT 131", "CALC1", 4, "Calculus I"],
    ["MAT 132", "CALC2", 4, "Calculus II"],
    ["MAT 203", "CALC3", 4, "Calculus III with Applications"],
    ["AMS 110", "STATS", 3, "Probability and Statistics in the Life Sciences"],
    ["CHE 131", "CHEM1", 4, "General Chemistry I"],
    ["CHE 132", "CHEM2", 4, "General Chemistry II"],
    ["PHY 131", "PHYS1", 3, "Classical Physics I"],
    ["BIO 202", "BIO1", 3, "Fundamentals of Biology: Molecular and Cellular Biology"],
    ["CSE 114", "CS1", 4, "Introduction to Object-Oriented Programming"],
    ["CSE 214", "CS2", 3, "Data Structures"],
    ["PSY 103", "PSY", 3, "Introduction to Psychology"],
    ["ECO 108", "MICROECON", 3, "Introduction to Economics"],
    ["SOC 105", "SOC", 3, "Introduction to Sociology"],
    ["CSE 373", "ALGO", 3, "Analysis of Algorithms"],
  ]),
  inst("193900", "New York University", "New York", "NY", "four_year_private", null, "channel_b", "NYU", "Office of Undergraduate Admissions, New York University", [
    ["EXPOS-UA 1", "ENG1", 4, "Writing as Inquiry"],
    ["MATH-UA 121", "CALC1", 4, "Calculus I"],
    ["MATH-UA 122", "CALC2", 4, "Calculus II"],
    ["CHEM-UA 125", "CHEM1", 5, "General Chemistry I and Laboratory"],
    ["CSCI-UA 101", "CS1", 4, "Introduction to Computer Science"],
    ["CSCI-UA 102", "CS2", 4, "Data Structures"],
    ["PSYCH-UA 1", "PSY", 4, "Introduction to Psychology"],
    ["ECON-UA 1", "MACRO", 4, "Introduction to Macroeconomics"],
    ["ECON-UA 2", "MICROECON", 4, "Introduction to Microeconomics"],
    ["CORE-UA 400", "SEMINAR", 4, "Texts and Ideas"],
  ]),
  inst("195003", "Rochester Institute of Technology", "Rochester", "NY", "four_year_private", null, "direct", "RIT", "Office of the Registrar, Rochester Institute of Technology", [
    ["UWRT 150", "ENG1", 3, "FYW: Writing Seminar"],
    ["MATH 181", "CALC1", 4, "Calculus I"],
    ["MATH 182", "CALC2", 4, "Calculus II"],
    ["MATH 221", "CALC3", 4, "Multivariable and Vector Calculus"],
    ["CHMG 141", "CHEM1", 3, "General & Analytical Chemistry I"],
    ["PHYS 211", "PHYS1", 4, "University Physics I"],
    ["CSCI 141", "CS1", 4, "Computer Science I"],
    ["CSCI 142", "CS2", 4, "Computer Science II"],
    ["PSYC 101", "PSY", 3, "Introduction to Psychology"],
    ["ECON 101", "MICROECON", 3, "Principles of Microeconomics"],
    ["ECON 201", "MACRO", 3, "Principles of Macroeconomics"],
  ]),

  // ------------------------------------------------------------------- Virginia
  inst("232946", "Northern Virginia Community College", "Annandale", "VA", "community_college", VCCS, "direct", "NOVA", "", [
    ["ENG 111", "ENG1", 3, "College Composition I"],
    ["ENG 112", "ENG2", 3, "College Composition II"],
    ["MTH 161", "PRECALC", 3, "Precalculus I"],
    ["MTH 263", "CALC1", 4, "Calculus I"],
    ["MTH 264", "CALC2", 4, "Calculus II"],
    ["MTH 265", "CALC3", 4, "Calculus III"],
    ["MTH 266", "LINALG", 3, "Linear Algebra"],
    ["MTH 267", "DIFFEQ", 3, "Differential Equations"],
    ["MTH 245", "STATS", 3, "Statistics I"],
    ["CHM 111", "CHEM1", 4, "General Chemistry I"],
    ["CHM 112", "CHEM2", 4, "General Chemistry II"],
    ["CHM 241", "OCHEM1", 3, "Organic Chemistry I"],
    ["PHY 241", "PHYS1", 4, "University Physics I"],
    ["PHY 242", "PHYS2", 4, "University Physics II"],
    ["BIO 101", "BIO1", 4, "General Biology I"],
    ["BIO 102", "BIO2", 4, "General Biology II"],
    ["BIO 141", "AP1", 4, "Anatomy and Physiology I"],
    ["CSC 221", "CS1", 4, "Introduction to Problem Solving and Programming"],
    ["CSC 222", "CS2", 4, "Object-Oriented Programming"],
    ["PSY 200", "PSY", 3, "Principles of Psychology"],
    ["ECO 201", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECO 202", "MICROECON", 3, "Principles of Microeconomics"],
    ["HIS 121", "USH1", 3, "United States History I"],
    ["PLS 135", "GOVT", 3, "U.S. Government and Politics"],
    ["CST 100", "COMM", 3, "Principles of Public Speaking"],
    ["ACC 211", "ACCT1", 3, "Principles of Accounting I"],
    ["EGR 121", "ENGR", 2, "Foundations of Engineering"],
    ["SDV 100", "FYE", 1, "College Success Skills"],
  ]),
  inst("233772", "Tidewater Community College", "Norfolk", "VA", "community_college", VCCS, "channel_a", "Tidewater Community College", "", [
    ["ENG 111", "ENG1", 3, "College Composition I"],
    ["ENG 112", "ENG2", 3, "College Composition II"],
    ["MTH 263", "CALC1", 4, "Calculus I"],
    ["MTH 264", "CALC2", 4, "Calculus II"],
    ["MTH 245", "STATS", 3, "Statistics I"],
    ["CHM 111", "CHEM1", 4, "General Chemistry I"],
    ["PHY 241", "PHYS1", 4, "University Physics I"],
    ["BIO 101", "BIO1", 4, "General Biology I"],
    ["BIO 150", "MICRO", 4, "Introductory Microbiology"],
    ["CSC 221", "CS1", 4, "Introduction to Problem Solving and Programming"],
    ["PSY 200", "PSY", 3, "Principles of Psychology"],
    ["PSY 230", "DEVPSY", 3, "Developmental Psychology"],
    ["SOC 200", "SOC", 3, "Principles of Sociology"],
    ["PHI 101", "PHIL", 3, "Introduction to Philosophy I"],
    ["SPA 101", "SPAN1", 4, "Beginning Spanish I"],
    ["HIS 121", "USH1", 3, "United States History I"],
    ["ADJ 100", "CRIM", 3, "Survey of Criminal Justice"],
    ["SDV 100", "FYE", 1, "College Success Skills"],
  ]),
  inst("232414", "J Sargeant Reynolds Community College", "Richmond", "VA", "community_college", VCCS, "channel_b", "Reynolds Community College", "", [
    ["ENG 111", "ENG1", 3, "College Composition I"],
    ["ENG 112", "ENG2", 3, "College Composition II"],
    ["MTH 263", "CALC1", 4, "Calculus I"],
    ["MTH 245", "STATS", 3, "Statistics I"],
    ["CHM 111", "CHEM1", 4, "General Chemistry I"],
    ["BIO 101", "BIO1", 4, "General Biology I"],
    ["BIO 141", "AP1", 4, "Anatomy and Physiology I"],
    ["PSY 200", "PSY", 3, "Principles of Psychology"],
    ["ECO 201", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECO 202", "MICROECON", 3, "Principles of Microeconomics"],
    ["HIS 122", "USH2", 3, "United States History II"],
    ["PLS 135", "GOVT", 3, "U.S. Government and Politics"],
    ["CST 100", "COMM", 3, "Principles of Public Speaking"],
    ["ART 101", "ARTH", 3, "History and Appreciation of Art I"],
    ["MUS 121", "MUS", 3, "Music in Society"],
    ["SDV 100", "FYE", 1, "College Success Skills"],
  ]),
  inst("234030", "Virginia Commonwealth University", "Richmond", "VA", "four_year_public", null, "direct", "VCU", "Transfer Center, Virginia Commonwealth University", [
    ["UNIV 111", "ENG1", 3, "Focused Inquiry I"],
    ["UNIV 112", "ENG2", 3, "Focused Inquiry II"],
    ["MATH 200", "CALC1", 4, "Calculus with Analytic Geometry I"],
    ["MATH 201", "CALC2", 4, "Calculus with Analytic Geometry II"],
    ["STAT 210", "STATS", 3, "Basic Practice of Statistics"],
    ["CHEM 101", "CHEM1", 3, "General Chemistry I"],
    ["CHEZ 101", "CHEM1L", 1, "General Chemistry Laboratory I"],
    ["PHYS 207", "PHYS1", 5, "University Physics I"],
    ["BIOL 151", "BIO1", 3, "Introduction to Biological Sciences I"],
    ["CMSC 255", "CS1", 4, "Introduction to Programming"],
    ["CMSC 256", "CS2", 4, "Data Structures and Object-Oriented Programming"],
    ["PSYC 101", "PSY", 4, "Introduction to Psychology"],
    ["PSYC 304", "DEVPSY", 3, "Life Span Developmental Psychology", "U"],
    ["ECON 210", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON 211", "MICROECON", 3, "Principles of Microeconomics"],
    ["HIST 103", "USH1", 3, "Survey of American History"],
    ["POLI 103", "GOVT", 3, "U.S. Government"],
    ["SOCY 101", "SOC", 3, "General Sociology"],
    ["CRJS 181", "CRIM", 3, "Justice System Survey"],
    ["ARTH 103", "ARTH", 3, "Survey of Western Art I"],
    ["UNIV 101", "FYE", 1, "Introduction to the University"],
  ]),
  inst("232186", "George Mason University", "Fairfax", "VA", "four_year_public", null, "channel_a", "George Mason University", "Transfer Credit Evaluation, George Mason University", [
    ["ENGH 101", "ENG1", 3, "Composition"],
    ["MATH 113", "CALC1", 4, "Analytic Geometry and Calculus I"],
    ["MATH 114", "CALC2", 4, "Analytic Geometry and Calculus II"],
    ["MATH 213", "CALC3", 3, "Analytic Geometry and Calculus III"],
    ["MATH 203", "LINALG", 3, "Matrix Algebra"],
    ["STAT 250", "STATS", 3, "Introductory Statistics I"],
    ["CHEM 211", "CHEM1", 3, "General Chemistry I"],
    ["CHEM 213", "CHEM1L", 1, "General Chemistry Laboratory I"],
    ["PHYS 160", "PHYS1", 3, "University Physics I"],
    ["BIOL 213", "BIO1", 4, "Cell Structure and Function"],
    ["CS 112", "CS1", 4, "Introduction to Computer Programming"],
    ["CS 211", "CS2", 3, "Object-Oriented Programming"],
    ["PSYC 100", "PSY", 3, "Basic Concepts in Psychology"],
    ["ECON 103", "MICROECON", 3, "Contemporary Microeconomic Principles"],
    ["ECON 104", "MACRO", 3, "Contemporary Macroeconomic Principles"],
    ["GOVT 103", "GOVT", 3, "Introduction to American Government"],
    ["COMM 100", "COMM", 3, "Public Communication in Context"],
    ["CRIM 100", "CRIM", 3, "Introduction to Criminology, Law and Justice"],
    ["ACCT 203", "ACCT1", 3, "Survey of Accounting"],
    ["UNIV 100", "FYE", 1, "Transition to George Mason University"],
  ]),
  inst("234076", "University of Virginia-Main Campus", "Charlottesville", "VA", "four_year_public", null, "channel_a", "University of Virginia", "Office of the University Registrar, University of Virginia", [
    ["ENWR 1510", "ENG1", 3, "Writing and Critical Inquiry"],
    ["MATH 1310", "CALC1", 4, "Calculus I"],
    ["MATH 1320", "CALC2", 4, "Calculus II"],
    ["MATH 2310", "CALC3", 4, "Calculus III"],
    ["STAT 1100", "STATS", 3, "Chance: An Introduction to Statistics"],
    ["CHEM 1410", "CHEM1", 3, "Introductory College Chemistry I"],
    ["CHEM 1411", "CHEM1L", 1, "Introductory College Chemistry I Laboratory"],
    ["PHYS 1425", "PHYS1", 3, "Physics I: Mechanics, Thermodynamics"],
    ["BIOL 2100", "BIO1", 4, "Introduction to Biology with Laboratory: Cellular and Genetics"],
    ["CS 1110", "CS1", 3, "Introduction to Programming"],
    ["CS 2100", "CS2", 4, "Data Structures and Algorithms 1"],
    ["PSYC 1010", "PSY", 3, "Introduction to Psychology"],
    ["ECON 2010", "MICROECON", 3, "Principles of Economics: Microeconomics"],
    ["ECON 2020", "MACRO", 3, "Principles of Economics: Macroeconomics"],
    ["PLAP 1010", "GOVT", 3, "Introduction to American Politics"],
    ["HIUS 2001", "USH1", 3, "American History to 1865"],
  ]),
  inst("233921", "Virginia Polytechnic Institute and State University", "Blacksburg", "VA", "four_year_public", null, "channel_b", "Virginia Tech", "Office of the University Registrar, Virginia Tech", [
    ["ENGL 1105", "ENG1", 3, "First-Year Writing: Introduction to College Composition"],
    ["ENGL 1106", "ENG2", 3, "First-Year Writing: Writing from Research"],
    ["MATH 1225", "CALC1", 4, "Calculus of a Single Variable"],
    ["MATH 1226", "CALC2", 4, "Calculus of a Single Variable"],
    ["MATH 2204", "CALC3", 3, "Introduction to Multivariable Calculus"],
    ["STAT 3005", "STATS", 3, "Statistical Methods", "U"],
    ["CHEM 1035", "CHEM1", 3, "General Chemistry"],
    ["CHEM 1045", "CHEM1L", 1, "General Chemistry Laboratory"],
    ["PHYS 2305", "PHYS1", 4, "Foundations of Physics I"],
    ["BIOL 1105", "BIO1", 3, "Principles of Biology"],
    ["CS 1114", "CS1", 3, "Introduction to Software Design"],
    ["CS 2114", "CS2", 3, "Software Design and Data Structures"],
    ["PSYC 1004", "PSY", 3, "Introductory Psychology"],
    ["ECON 2005", "MICROECON", 3, "Principles of Economics"],
    ["ECON 2006", "MACRO", 3, "Principles of Economics"],
    ["ENGE 1215", "ENGR", 2, "Foundations of Engineering"],
    ["ESM 2104", "STATICS", 3, "Statics"],
  ]),
  inst("232982", "Old Dominion University", "Norfolk", "VA", "four_year_public", null, "direct", "Old Dominion University", "Transfer Credit Evaluation, Old Dominion University", [
    ["ENGL 110C", "ENG1", 3, "English Composition"],
    ["ENGL 211C", "ENG2", 3, "Writing, Rhetoric, and Research"],
    ["MATH 211", "CALC1", 4, "Calculus I"],
    ["MATH 212", "CALC2", 4, "Calculus II"],
    ["STAT 130M", "STATS", 3, "Elementary Statistics"],
    ["CHEM 123N", "CHEM1", 3, "Foundations of Chemistry I Lecture"],
    ["CHEM 124N", "CHEM1L", 1, "Foundations of Chemistry I Laboratory"],
    ["PHYS 231N", "PHYS1", 4, "University Physics I"],
    ["BIOL 121N", "BIO1", 3, "General Biology I"],
    ["CS 150", "CS1", 4, "Problem Solving and Programming I"],
    ["PSYC 201S", "PSY", 3, "Introduction to Psychology"],
    ["ECON 201S", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON 202S", "MICROECON", 3, "Principles of Microeconomics"],
    ["SOC 201S", "SOC", 3, "Introduction to Sociology"],
    ["CRJS 215S", "CRIM", 3, "Introduction to Criminal Justice"],
  ]),
  inst("233374", "University of Richmond", "University of Richmond", "VA", "four_year_private", null, "channel_a", "University of Richmond", "Office of the University Registrar, University of Richmond", [
    ["MATH 211", "CALC1", 4, "Calculus I"],
    ["MATH 212", "CALC2", 4, "Calculus II"],
    ["CHEM 141", "CHEM1", 4, "Integrated Chemistry I"],
    ["CMSC 150", "CS1", 4, "Introduction to Computing"],
    ["PSYC 100", "PSY", 4, "Introduction to Psychology"],
    ["ECON 101", "MICROECON", 4, "Principles of Microeconomics"],
    ["ECON 102", "MACRO", 4, "Principles of Macroeconomics"],
    ["FSEM 100", "SEMINAR", 4, "First-Year Seminar"],
  ]),

  // ----------------------------------------------------------------- Washington
  inst("236610", "Shoreline Community College", "Shoreline", "WA", "community_college", WSBCTC, "channel_b", "Shoreline Community College", "", [
    ["ENGL& 101", "ENG1", 5, "English Composition I"],
    ["ENGL& 102", "ENG2", 5, "Composition II"],
    ["MATH& 141", "PRECALC", 5, "Precalculus I: Algebra"],
    ["MATH& 151", "CALC1", 5, "Calculus I"],
    ["MATH& 152", "CALC2", 5, "Calculus II"],
    ["MATH& 153", "CALC3", 5, "Calculus III"],
    ["MATH& 146", "STATS", 5, "Introduction to Statistics"],
    ["CHEM& 161", "CHEM1", 5, "General Chemistry with Lab I"],
    ["CHEM& 162", "CHEM2", 5, "General Chemistry with Lab II"],
    ["PHYS& 221", "PHYS1", 5, "Engineering Physics I"],
    ["BIOL& 211", "BIO1", 5, "Majors Cellular"],
    ["BIOL& 212", "BIO2", 5, "Majors Animal"],
    ["CS& 141", "CS1", 5, "Computer Science I Java"],
    ["CS 143", "CS2", 5, "Computer Science II"],
    ["PSYC& 100", "PSY", 5, "General Psychology"],
    ["PSYC& 200", "DEVPSY", 5, "Lifespan Psychology"],
    ["ECON& 201", "MICROECON", 5, "Micro Economics"],
    ["ECON& 202", "MACRO", 5, "Macro Economics"],
    ["HIST& 146", "USH1", 5, "United States History I"],
    ["POLS& 202", "GOVT", 5, "American Government"],
    ["CMST& 220", "COMM", 5, "Public Speaking"],
    ["SOC& 101", "SOC", 5, "Introduction to Sociology"],
    ["ANTH& 206", "ANTH", 5, "Cultural Anthropology"],
    ["ACCT& 201", "ACCT1", 5, "Principles of Accounting I"],
    ["ENGR& 214", "STATICS", 5, "Statics"],
    ["HDEV 101", "FYE", 3, "Navigating College"],
  ]),
  inst("236656", "South Puget Sound Community College", "Olympia", "WA", "community_college", WSBCTC, "channel_b", "South Puget Sound Community College", "", [
    ["ENGL& 101", "ENG1", 5, "English Composition I"],
    ["ENGL& 102", "ENG2", 5, "Composition II"],
    ["MATH& 151", "CALC1", 5, "Calculus I"],
    ["MATH& 152", "CALC2", 5, "Calculus II"],
    ["MATH& 146", "STATS", 5, "Introduction to Statistics"],
    ["CHEM& 161", "CHEM1", 5, "General Chemistry with Lab I"],
    ["PHYS& 221", "PHYS1", 5, "Engineering Physics I"],
    ["BIOL& 211", "BIO1", 5, "Majors Cellular"],
    ["BIOL& 241", "AP1", 5, "Human A & P 1"],
    ["BIOL& 260", "MICRO", 5, "Microbiology"],
    ["PSYC& 100", "PSY", 5, "General Psychology"],
    ["ECON& 201", "MICROECON", 5, "Micro Economics"],
    ["HIST& 147", "USH2", 5, "United States History II"],
    ["POLS& 202", "GOVT", 5, "American Government"],
    ["CMST& 220", "COMM", 5, "Public Speaking"],
    ["NUTR& 101", "NUTR", 5, "Nutrition"],
    ["ART& 100", "ARTH", 5, "Art Appreciation"],
    ["MUSC& 105", "MUS", 5, "Music Appreciation"],
    ["CLST 100", "FYE", 2, "College Success"],
  ]),
  inst("236948", "University of Washington-Seattle Campus", "Seattle", "WA", "four_year_public", "University of Washington", "direct", "University of Washington", "Transfer Credit Evaluation, University of Washington", [
    ["ENGL 131", "ENG1", 5, "Composition: Exposition"],
    ["MATH 124", "CALC1", 5, "Calculus with Analytic Geometry I"],
    ["MATH 125", "CALC2", 5, "Calculus with Analytic Geometry II"],
    ["MATH 126", "CALC3", 5, "Calculus with Analytic Geometry III"],
    ["MATH 208", "LINALG", 3, "Matrix Algebra with Applications"],
    ["STAT 311", "STATS", 5, "Elements of Statistical Methods", "U"],
    ["CHEM 142", "CHEM1", 5, "General Chemistry"],
    ["CHEM 152", "CHEM2", 5, "General Chemistry"],
    ["PHYS 121", "PHYS1", 5, "Mechanics"],
    ["BIOL 180", "BIO1", 5, "Introductory Biology"],
    ["CSE 121", "CS1", 4, "Introduction to Computer Programming I"],
    ["CSE 122", "CS2", 4, "Introduction to Computer Programming II"],
    ["PSYCH 101", "PSY", 5, "Introduction to Psychology"],
    ["ECON 200", "MICROECON", 5, "Introduction to Microeconomics"],
    ["ECON 201", "MACRO", 5, "Introduction to Macroeconomics"],
    ["HSTAA 101", "USH1", 5, "Introduction to American History"],
    ["POL S 202", "GOVT", 5, "Introduction to American Politics"],
    ["COM 220", "COMM", 5, "Introduction to Public Speaking"],
    ["SOC 110", "SOC", 5, "Survey of Sociology"],
    ["ANTH 100", "ANTH", 5, "Introduction to Anthropology"],
    ["A A 210", "STATICS", 4, "Engineering Statics"],
    ["CSE 373", "ALGO", 4, "Data Structures and Algorithms"],
    ["GEN ST 199", "FYE", 2, "University Community"],
  ]),
  inst("236939", "Washington State University", "Pullman", "WA", "four_year_public", null, "channel_a", "Washington State University", "Office of the Registrar, Washington State University", [
    ["ENGLISH 101", "ENG1", 3, "College Composition"],
    ["MATH 171", "CALC1", 4, "Calculus I"],
    ["MATH 172", "CALC2", 4, "Calculus II"],
    ["MATH 273", "CALC3", 3, "Calculus III"],
    ["STAT 212", "STATS", 4, "Introduction to Statistical Methods"],
    ["CHEM 105", "CHEM1", 4, "Principles of Chemistry I"],
    ["CHEM 106", "CHEM2", 4, "Principles of Chemistry II"],
    ["PHYSICS 201", "PHYS1", 4, "Physics for Scientists and Engineers I"],
    ["BIOLOGY 107", "BIO1", 4, "Introductory Biology: Cell Biology and Genetics"],
    ["CPT S 121", "CS1", 4, "Program Design and Development C/C++"],
    ["CPT S 122", "CS2", 4, "Data Structures C/C++"],
    ["PSYCH 105", "PSY", 3, "Introductory Psychology"],
    ["ECONS 101", "MICROECON", 3, "Fundamentals of Microeconomics"],
    ["ECONS 102", "MACRO", 3, "Fundamentals of Macroeconomics"],
    ["HISTORY 110", "USH1", 3, "American History to 1877"],
    ["POL S 101", "GOVT", 3, "American National Government"],
    ["SOC 101", "SOC", 3, "Introduction to Sociology"],
    ["ANTH 101", "ANTH", 3, "General Anthropology"],
  ]),
  inst("237011", "Western Washington University", "Bellingham", "WA", "four_year_public", null, "channel_b", "Western Washington University", "Office of the Registrar, Western Washington University", [
    ["ENG 101", "ENG1", 5, "Writing and Critical Inquiry"],
    ["MATH 124", "CALC1", 5, "Calculus and Analytic Geometry I"],
    ["MATH 125", "CALC2", 5, "Calculus and Analytic Geometry II"],
    ["MATH 224", "CALC3", 5, "Multivariable Calculus and Geometry I"],
    ["MATH 240", "STATS", 4, "Introduction to Statistics"],
    ["CHEM 161", "CHEM1", 5, "General Chemistry I"],
    ["CHEM 162", "CHEM2", 5, "General Chemistry II"],
    ["PHYS 161", "PHYS1", 5, "Physics with Calculus I"],
    ["BIOL 204", "BIO2", 5, "Introduction to Evolution, Ecology and Biodiversity"],
    ["CSCI 141", "CS1", 4, "Computer Programming I"],
    ["CSCI 145", "CS2", 4, "Computer Programming and Linear Data Structures"],
    ["PSY 101", "PSY", 5, "Introduction to Psychology"],
    ["ECON 206", "MICROECON", 4, "Introduction to Microeconomics"],
    ["ECON 207", "MACRO", 4, "Introduction to Macroeconomics"],
    ["SOC 201", "SOC", 5, "Introduction to Sociology"],
  ]),
  inst("236595", "Seattle University", "Seattle", "WA", "four_year_private", null, "direct", "Seattle University", "Office of the Registrar, Seattle University", [
    ["UCOR 1100", "ENG1", 5, "Academic Writing Seminar"],
    ["MATH 1334", "CALC1", 5, "Calculus I"],
    ["MATH 1335", "CALC2", 5, "Calculus II"],
    ["CHEM 1510", "CHEM1", 5, "General Chemistry I"],
    ["CPSC 1420", "CS1", 5, "Programming and Problem Solving I"],
    ["CPSC 1430", "CS2", 5, "Programming and Problem Solving II"],
    ["PSYC 1200", "PSY", 5, "Introductory Psychology"],
    ["ECON 2110", "MICROECON", 5, "Principles of Microeconomics"],
    ["ECON 2120", "MACRO", 5, "Principles of Macroeconomics"],
    ["UCOR 1400", "SEMINAR", 5, "Inquiry Seminar in the Social Sciences"],
  ]),

  // -------------------------------------------------------------------- Arizona
  inst("105154", "Mesa Community College", "Mesa", "AZ", "community_college", MCCD, "direct", "Mesa Community College", "", [
    ["ENG101", "ENG1", 3, "First-Year Composition"],
    ["ENG102", "ENG2", 3, "First-Year Composition"],
    ["MAT187", "PRECALC", 5, "Precalculus"],
    ["MAT220", "CALC1", 5, "Calculus with Analytic Geometry I"],
    ["MAT230", "CALC2", 5, "Calculus with Analytic Geometry II"],
    ["MAT240", "CALC3", 4, "Calculus with Analytic Geometry III"],
    ["MAT206", "STATS", 3, "Elements of Statistics"],
    ["CHM151", "CHEM1", 3, "General Chemistry I"],
    ["CHM151LL", "CHEM1L", 1, "General Chemistry I Laboratory"],
    ["CHM152", "CHEM2", 3, "General Chemistry II"],
    ["PHY121", "PHYS1", 4, "University Physics I: Mechanics"],
    ["BIO181", "BIO1", 4, "General Biology (Majors) I"],
    ["BIO182", "BIO2", 4, "General Biology (Majors) II"],
    ["CSC110", "CS1", 3, "Introduction to Computer Science (Java)"],
    ["CSC205", "CS2", 3, "Object-Oriented Programming and Data Structures"],
    ["PSY101", "PSY", 3, "Introduction to Psychology"],
    ["ECN211", "MACRO", 3, "Macroeconomic Principles"],
    ["ECN212", "MICROECON", 3, "Microeconomic Principles"],
    ["HIS103", "USH1", 3, "United States History to 1865"],
    ["POS110", "GOVT", 3, "American National Government"],
    ["COM100", "COMM", 3, "Introduction to Human Communication"],
    ["SOC101", "SOC", 3, "Introduction to Sociology"],
    ["EGR102", "ENGR", 3, "Introduction to Engineering Design"],
    ["CPD150", "FYE", 3, "Strategies for College Success"],
  ]),
  inst("105428", "Phoenix College", "Phoenix", "AZ", "community_college", MCCD, "channel_a", "Phoenix College", "", [
    ["ENG101", "ENG1", 3, "First-Year Composition"],
    ["ENG102", "ENG2", 3, "First-Year Composition"],
    ["MAT220", "CALC1", 5, "Calculus with Analytic Geometry I"],
    ["MAT206", "STATS", 3, "Elements of Statistics"],
    ["CHM151", "CHEM1", 3, "General Chemistry I"],
    ["CHM151LL", "CHEM1L", 1, "General Chemistry I Laboratory"],
    ["BIO181", "BIO1", 4, "General Biology (Majors) I"],
    ["BIO201", "AP1", 4, "Human Anatomy and Physiology I"],
    ["BIO205", "MICRO", 4, "Microbiology"],
    ["PSY101", "PSY", 3, "Introduction to Psychology"],
    ["PSY240", "DEVPSY", 3, "Developmental Psychology"],
    ["ECN212", "MICROECON", 3, "Microeconomic Principles"],
    ["HIS104", "USH2", 3, "United States History 1865 to Present"],
    ["POS110", "GOVT", 3, "American National Government"],
    ["SPA101", "SPAN1", 4, "Elementary Spanish I"],
    ["CRJ100", "CRIM", 3, "Introduction to Criminal Justice"],
    ["ARH101", "ARTH", 3, "Prehistoric through Gothic Art"],
    ["CPD150", "FYE", 3, "Strategies for College Success"],
  ]),
  inst("105525", "Pima Community College", "Tucson", "AZ", "community_college", null, "channel_b", "Pima Community College", "", [
    ["WRT 101", "ENG1", 3, "Writing I"],
    ["WRT 102", "ENG2", 3, "Writing II"],
    ["MAT 220", "CALC1", 5, "Calculus I"],
    ["MAT 231", "CALC2", 4, "Calculus II"],
    ["MAT 241", "CALC3", 4, "Calculus III"],
    ["MAT 167", "STATS", 3, "Elementary Statistics"],
    ["CHM 151IN", "CHEM1", 4, "General Chemistry I"],
    ["PHY 210IN", "PHYS1", 4, "Introductory Mechanics"],
    ["BIO 181IN", "BIO1", 4, "General Biology I"],
    ["CSC 110", "CS1", 4, "Introduction to Computer Science I"],
    ["PSY 101", "PSY", 3, "Introduction to Psychology"],
    ["ECN 201", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECN 202", "MICROECON", 3, "Principles of Microeconomics"],
    ["HIS 141", "USH1", 3, "United States History I"],
    ["POS 110", "GOVT", 3, "American National Government"],
    ["SPA 101", "SPAN1", 4, "Elementary Spanish I"],
    ["ANT 102", "ANTH", 3, "Introduction to Cultural Anthropology"],
    ["STU 100", "FYE", 1, "College Success"],
  ]),
  inst("104151", "Arizona State University Campus Immersion", "Tempe", "AZ", "four_year_public", ABOR, "direct", "Arizona State University", "Registrar, Arizona State University", [
    ["ENG 101", "ENG1", 3, "First-Year Composition"],
    ["ENG 102", "ENG2", 3, "First-Year Composition"],
    ["MAT 170", "PRECALC", 3, "Precalculus"],
    ["MAT 265", "CALC1", 3, "Calculus for Engineers I"],
    ["MAT 266", "CALC2", 3, "Calculus for Engineers II"],
    ["MAT 267", "CALC3", 3, "Calculus for Engineers III"],
    ["MAT 343", "LINALG", 3, "Applied Linear Algebra", "U"],
    ["STP 226", "STATS", 3, "Elements of Statistics"],
    ["CHM 113", "CHEM1", 4, "General Chemistry I"],
    ["CHM 116", "CHEM2", 4, "General Chemistry II"],
    ["PHY 121", "PHYS1", 3, "University Physics I: Mechanics"],
    ["BIO 181", "BIO1", 4, "General Biology I"],
    ["BIO 182", "BIO2", 4, "General Biology II"],
    ["CSE 110", "CS1", 3, "Principles of Programming"],
    ["CSE 205", "CS2", 3, "Object-Oriented Programming and Data Structures"],
    ["PSY 101", "PSY", 3, "Introduction to Psychology"],
    ["ECN 211", "MACRO", 3, "Macroeconomic Principles"],
    ["ECN 212", "MICROECON", 3, "Microeconomic Principles"],
    ["HST 109", "USH1", 3, "United States to 1865"],
    ["POS 110", "GOVT", 3, "American Government and Politics"],
    ["COM 100", "COMM", 3, "Introduction to Human Communication"],
    ["SOC 101", "SOC", 3, "Introductory Sociology"],
    ["FSE 100", "ENGR", 2, "Introduction to Engineering"],
    ["CSE 310", "ALGO", 3, "Data Structures and Algorithms"],
    ["BIO 340", "GENETICS", 4, "General Genetics"],
    ["ASU 101", "FYE", 1, "The ASU Experience"],
  ]),
  inst("104179", "University of Arizona", "Tucson", "AZ", "four_year_public", ABOR, "channel_a", "University of Arizona", "Transfer Credit Evaluation, University of Arizona", [
    ["ENGL 101", "ENG1", 3, "Foundations Writing"],
    ["ENGL 102", "ENG2", 3, "Foundations Writing"],
    ["MATH 125", "CALC1", 3, "Calculus I with Applications"],
    ["MATH 129", "CALC2", 3, "Calculus II"],
    ["MATH 223", "CALC3", 4, "Vector Calculus"],
    ["MATH 313", "LINALG", 3, "Introduction to Linear Algebra", "U"],
    ["CHEM 151", "CHEM1", 4, "General Chemistry I"],
    ["CHEM 152", "CHEM2", 4, "General Chemistry II"],
    ["PHYS 141", "PHYS1", 4, "Introductory Mechanics"],
    ["MCB 181R", "BIO1", 3, "Introductory Biology I"],
    ["CSC 110", "CS1", 4, "Computer Programming I"],
    ["CSC 120", "CS2", 4, "Introduction to Computer Programming II"],
    ["PSY 150A1", "PSY", 3, "Introduction to Psychology"],
    ["ECON 200", "MICROECON", 3, "Basic Economic Issues"],
    ["POL 201", "GOVT", 3, "American National Government"],
    ["SOC 101", "SOC", 3, "Introduction to Sociology"],
    ["UNIV 101", "FYE", 1, "Introduction to the General Education Experience"],
  ]),
  inst("105330", "Northern Arizona University", "Flagstaff", "AZ", "four_year_public", ABOR, "channel_a", "Northern Arizona University", "Office of the Registrar, Northern Arizona University", [
    ["ENG 105", "ENG1", 4, "Critical Reading and Writing in the University Community"],
    ["MAT 136", "CALC1", 4, "Calculus I"],
    ["MAT 137", "CALC2", 4, "Calculus II"],
    ["MAT 238", "CALC3", 4, "Calculus III"],
    ["STA 270", "STATS", 3, "Applied Statistics"],
    ["CHM 151", "CHEM1", 3, "General Chemistry I"],
    ["CHM 151L", "CHEM1L", 1, "General Chemistry I Laboratory"],
    ["PHY 161", "PHYS1", 4, "University Physics I"],
    ["BIO 181", "BIO1", 3, "Unity of Life I: Life of the Cell"],
    ["BIO 205", "MICRO", 4, "Microbiology"],
    ["CS 126", "CS1", 3, "Computer Science I"],
    ["PSY 101", "PSY", 3, "Introduction to Psychology"],
    ["ECO 284", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECO 285", "MICROECON", 3, "Principles of Microeconomics"],
    ["POS 110", "GOVT", 3, "American Political Systems"],
    ["CCJ 101", "CRIM", 3, "Introduction to Criminal Justice"],
    ["HIS 281", "USH1", 3, "History of the United States to 1865"],
  ]),
  inst("104586", "Embry-Riddle Aeronautical University-Prescott", "Prescott", "AZ", "four_year_private", "Embry-Riddle Aeronautical University Inc.", "channel_b", "Embry-Riddle Prescott", "Office of the Registrar, Embry-Riddle Aeronautical University-Prescott", [
    ["COM 122", "ENG1", 3, "English Composition"],
    ["MA 241", "CALC1", 4, "Calculus and Analytical Geometry I"],
    ["MA 242", "CALC2", 4, "Calculus and Analytical Geometry II"],
    ["MA 243", "CALC3", 4, "Calculus and Analytical Geometry III"],
    ["PS 150", "PHYS1", 3, "Physics for Engineers I"],
    ["CHM 110", "CHEM1", 3, "General Chemistry I"],
    ["CS 118", "CS1", 3, "Fundamentals of Computer Programming"],
    ["EGR 101", "ENGR", 2, "Introduction to Engineering"],
    ["ES 201", "STATICS", 3, "Statics"],
    ["PSY 101", "PSY", 3, "Introduction to Psychology"],
    ["COM 219", "COMM", 3, "Speech"],
  ]),

  // ----------------------------------------------------------------------- Ohio
  inst("202222", "Columbus State Community College", "Columbus", "OH", "community_college", null, "direct", "Columbus State Community College", "", [
    ["ENGL 1100", "ENG1", 3, "Composition I"],
    ["ENGL 2367", "ENG2", 3, "Composition II"],
    ["MATH 1150", "PRECALC", 5, "Precalculus"],
    ["MATH 1151", "CALC1", 5, "Calculus I"],
    ["MATH 1152", "CALC2", 5, "Calculus II"],
    ["MATH 2153", "CALC3", 4, "Calculus III"],
    ["STAT 1350", "STATS", 3, "Elementary Statistics"],
    ["CHEM 1210", "CHEM1", 5, "General Chemistry I"],
    ["CHEM 1220", "CHEM2", 5, "General Chemistry II"],
    ["PHYS 1250", "PHYS1", 5, "Physics I: Mechanics, Work and Energy"],
    ["BIO 1113", "BIO1", 4, "Biological Sciences I"],
    ["BIO 2310", "AP1", 4, "Human Anatomy and Physiology I"],
    ["CSCI 1103", "CS1", 3, "Introduction to Computer Programming"],
    ["PSY 1100", "PSY", 3, "Introduction to Psychology"],
    ["ECON 2200", "MICROECON", 3, "Principles of Microeconomics"],
    ["ECON 2201", "MACRO", 3, "Principles of Macroeconomics"],
    ["HIST 1151", "USH1", 3, "American History to 1877"],
    ["POLS 1100", "GOVT", 3, "Introduction to American Government"],
    ["COMM 1105", "COMM", 3, "Fundamentals of Public Speaking"],
    ["SOC 1101", "SOC", 3, "Introduction to Sociology"],
    ["COLS 1100", "FYE", 1, "First Year Experience Seminar"],
  ]),
  inst("202356", "Cuyahoga Community College District", "Cleveland", "OH", "community_college", null, "channel_a", "Tri-C", "", [
    ["ENG-1010", "ENG1", 3, "College Composition I"],
    ["ENG-1020", "ENG2", 3, "College Composition II"],
    ["MATH-1610", "CALC1", 5, "Calculus I"],
    ["MATH-1620", "CALC2", 5, "Calculus II"],
    ["MATH-1410", "STATS", 3, "Elementary Probability and Statistics I"],
    ["CHEM-1410", "CHEM1", 4, "General Chemistry I"],
    ["PHYS-2310", "PHYS1", 4, "General Physics I - Calculus-Based"],
    ["BIO-1400", "BIO1", 4, "General Biology I"],
    ["BIO-2331", "AP1", 4, "Anatomy and Physiology I"],
    ["PSY-1010", "PSY", 3, "General Psychology"],
    ["ECON-2600", "MACRO", 3, "Principles of Macroeconomics"],
    ["ECON-2610", "MICROECON", 3, "Principles of Microeconomics"],
    ["HIST-1510", "USH1", 3, "American History I"],
    ["SOC-1010", "SOC", 3, "Introduction to Sociology"],
    ["CJS-1010", "CRIM", 3, "Introduction to Criminal Justice"],
    ["ITPR-1720", "CS1", 3, "Introduction to Java Programming"],
    ["COMM-1010", "COMM", 3, "Speech Communication"],
    ["NUTR-1500", "NUTR", 3, "Principles of Nutrition"],
  ]),
  inst("204796", "Ohio State University-Main Campus", "Columbus", "OH", "four_year_public", "The Ohio State University-Main Campus", "channel_b", "Ohio State", "Transfer Credit Center, The Ohio State University", [
    ["ENGLISH 1110.01", "ENG1", 3, "First-Year English Composition"],
    ["MATH 1151", "CALC1", 5, "Calculus I"],
    ["MATH 1172", "CALC2", 5, "Engineering Mathematics A"],
    ["MATH 2153", "CALC3", 4, "Calculus III"],
    ["STAT 1450", "STATS", 3, "Introduction to the Practice of Statistics"],
    ["CHEM 1210", "CHEM1", 5, "General Chemistry I"],
    ["CHEM 1220", "CHEM2", 5, "General Chemistry II"],
    ["PHYSICS 1250", "PHYS1", 5, "Mechanics, Work and Energy, Thermal Physics"],
    ["BIOLOGY 1113", "BIO1", 4, "Biological Sciences: Energy Transfer and Development"],
    ["CSE 1223", "CS1", 3, "Introduction to Computer Programming in Java"],
    ["CSE 2221", "CS2", 4, "Software I: Software Components"],
    ["PSYCH 1100", "PSY", 3, "Introduction to Psychology"],
    ["ECON 2001.01", "MICROECON", 3, "Principles of Microeconomics"],
    ["ECON 2002.01", "MACRO", 3, "Principles of Macroeconomics"],
    ["HISTORY 2001", "USH1", 3, "American Civilization, 1607-1877"],
    ["POLITSC 1100", "GOVT", 3, "Introduction to American Politics"],
    ["SOCIOL 1101", "SOC", 3, "Introduction to Sociology"],
    ["PSYCH 3331", "ABPSY", 3, "Abnormal Psychology"],
  ]),
  inst("201885", "University of Cincinnati-Main Campus", "Cincinnati", "OH", "four_year_public", "The University System of Ohio", "channel_b", "University of Cincinnati", "Office of the Registrar, University of Cincinnati", [
    ["ENGL 1001", "ENG1", 3, "English Composition"],
    ["MATH 1061", "CALC1", 4, "Calculus I"],
    ["MATH 1062", "CALC2", 4, "Calculus II"],
    ["MATH 2063", "CALC3", 4, "Multivariable Calculus"],
    ["STAT 1031", "STATS", 3, "Introductory Statistics"],
    ["CHEM 1040", "CHEM1", 4, "General Chemistry I"],
    ["PHYS 2001", "PHYS1", 4, "Physics I"],
    ["BIOL 1081", "BIO1", 3, "Biology 1"],
    ["CS 1021C", "CS1", 3, "Computer Science I"],
    ["PSYC 1001", "PSY", 3, "Introduction to Psychology"],
    ["ECON 1001", "MICROECON", 3, "Principles of Microeconomics"],
    ["ECON 1002", "MACRO", 3, "Principles of Macroeconomics"],
    ["POL 1080", "GOVT", 3, "American Politics"],
    ["SOC 1001", "SOC", 3, "Introductory Sociology"],
  ]),
  inst("203517", "Kent State University at Kent", "Kent", "OH", "four_year_public", "The University System of Ohio", "direct", "Kent State University", "Transfer Center, Kent State University", [
    ["ENG 11011", "ENG1", 3, "College Writing I"],
    ["ENG 21011", "ENG2", 3, "College Writing II"],
    ["MATH 12002", "CALC1", 5, "Analytic Geometry and Calculus I"],
    ["MATH 12003", "CALC2", 5, "Analytic Geometry and Calculus II"],
    ["MATH 22005", "CALC3", 3, "Analytic Geometry and Calculus III"],
    ["MATH 10041", "STATS", 3, "Elementary Probability and Statistics"],
    ["CHEM 10060", "CHEM1", 4, "General Chemistry I"],
    ["PHY 23101", "PHYS1", 5, "General University Physics I"],
    ["BSCI 10110", "BIO1", 4, "Biological Foundations"],
    ["CS 13001", "CS1", 4, "Computer Science I: Programming and Problem Solving"],
    ["CS 23001", "CS2", 4, "Computer Science II: Data Structures and Abstraction"],
    ["PSYC 11762", "PSY", 3, "General Psychology"],
    ["ECON 22060", "MICROECON", 3, "Principles of Microeconomics"],
    ["ECON 22061", "MACRO", 3, "Principles of Macroeconomics"],
    ["HIST 12070", "USH1", 3, "History of the United States: The Formation of a Nation"],
    ["POL 10100", "GOVT", 3, "American Politics"],
    ["SOC 12050", "SOC", 3, "Introduction to Sociology"],
    ["US 10097", "FYE", 1, "Destination Kent State: First Year Experience"],
  ]),
  inst("201645", "Case Western Reserve University", "Cleveland", "OH", "four_year_private", null, "channel_a", "Case Western Reserve", "Office of the University Registrar, Case Western Reserve University", [
    ["MATH 121", "CALC1", 4, "Calculus for Science and Engineering I"],
    ["MATH 122", "CALC2", 4, "Calculus for Science and Engineering II"],
    ["CHEM 105", "CHEM1", 3, "Principles of Chemistry I"],
    ["PHYS 121", "PHYS1", 4, "General Physics I - Mechanics"],
    ["CSDS 132", "CS1", 3, "Programming in Java"],
    ["PSCL 101", "PSY", 3, "General Psychology I"],
    ["ECON 102", "MICROECON", 3, "Principles of Microeconomics"],
    ["ECON 103", "MACRO", 3, "Principles of Macroeconomics"],
    ["FSCC 100", "SEMINAR", 3, "SAGES First Seminar"],
  ]),

  // ------------------------------------------------------------- North Carolina
  inst("199856", "Wake Technical Community College", "Raleigh", "NC", "community_college", NCCCS, "channel_b", "Wake Tech", "", [
    ["ENG 111", "ENG1", 3, "Writing and Inquiry"],
    ["ENG 112", "ENG2", 3, "Writing/Research in the Disciplines"],
    ["MAT 171", "PRECALC", 4, "Precalculus Algebra"],
    ["MAT 271", "CALC1", 4, "Calculus I"],
    ["MAT 272", "CALC2", 4, "Calculus II"],
    ["MAT 273", "CALC3", 4, "Calculus III"],
    ["MAT 152", "STATS", 4, "Statistical Methods I"],
    ["CHM 151", "CHEM1", 4, "General Chemistry I"],
    ["CHM 152", "CHEM2", 4, "General Chemistry II"],
    ["PHY 251", "PHYS1", 4, "General Physics I"],
    ["BIO 111", "BIO1", 4, "General Biology I"],
    ["BIO 112", "BIO2", 4, "General Biology II"],
    ["CSC 151", "CS1", 3, "JAVA Programming"],
    ["CSC 251", "CS2", 3, "Advanced JAVA Programming"],
    ["PSY 150", "PSY", 3, "General Psychology"],
    ["PSY 241", "DEVPSY", 3, "Developmental Psychology"],
    ["ECO 251", "MICROECON", 3, "Principles of Microeconomics"],
    ["ECO 252", "MACRO", 3, "Principles of Macroeconomics"],
    ["HIS 131", "USH1", 3, "American History I"],
    ["POL 120", "GOVT", 3, "American Government"],
    ["COM 231", "COMM", 3, "Public Speaking"],
    ["SOC 210", "SOC", 3, "Introduction to Sociology"],
    ["ACC 120", "ACCT1", 4, "Principles of Financial Accounting"],
    ["EGR 150", "ENGR", 2, "Introduction to Engineering"],
    ["ACA 122", "FYE", 1, "College Transfer Success"],
  ]),
  inst("198260", "Central Piedmont Community College", "Charlotte", "NC", "community_college", NCCCS, "direct", "Central Piedmont", "", [
    ["ENG 111", "ENG1", 3, "Writing and Inquiry"],
    ["ENG 112", "ENG2", 3, "Writing/Research in the Disciplines"],
    ["MAT 271", "CALC1", 4, "Calculus I"],
    ["MAT 272", "CALC2", 4, "Calculus II"],
    ["MAT 152", "STATS", 4, "Statistical Methods I"],
    ["CHM 151", "CHEM1", 4, "General Chemistry I"],
    ["PHY 251", "PHYS1", 4, "General Physics I"],
    ["BIO 111", "BIO1", 4, "General Biology I"],
    ["BIO 168", "AP1", 4, "Anatomy and Physiology I"],
    ["CSC 134", "CS1", 3, "C++ Programming"],
    ["PSY 150", "PSY", 3, "General Psychology"],
    ["ECO 251", "MICROECON", 3, "Principles of Microeconomics"],
    ["ECO 252", "MACRO", 3, "Principles of Macroeconomics"],
    ["HIS 132", "USH2", 3, "American History II"],
    ["POL 120", "GOVT", 3, "American Government"],
    ["COM 231", "COMM", 3, "Public Speaking"],
    ["SPA 111", "SPAN1", 3, "Elementary Spanish I"],
    ["ART 114", "ARTH", 3, "Art History Survey I"],
    ["MUS 110", "MUS", 3, "Music Appreciation"],
    ["PHI 240", "ETHICS", 3, "Introduction to Ethics"],
    ["CJC 111", "CRIM", 3, "Introduction to Criminal Justice"],
    ["ACA 122", "FYE", 1, "College Transfer Success"],
  ]),
  inst("199120", "University of North Carolina at Chapel Hill", "Chapel Hill", "NC", "four_year_public", UNC, "direct", "UNC-Chapel Hill", "Undergraduate Admissions Transfer Credit, UNC-Chapel Hill", [
    ["ENGL 105", "ENG1", 3, "English Composition and Rhetoric"],
    ["MATH 231", "CALC1", 4, "Calculus of Functions of One Variable I"],
    ["MATH 232", "CALC2", 4, "Calculus of Functions of One Variable II"],
    ["MATH 233", "CALC3", 4, "Calculus of Functions of Several Variables"],
    ["STOR 155", "STATS", 3, "Introduction to Data Models and Inference"],
    ["CHEM 101", "CHEM1", 3, "General Descriptive Chemistry I"],
    ["CHEM 101L", "CHEM1L", 1, "Quantitative Chemistry Laboratory I"],
    ["PHYS 118", "PHYS1", 4, "Introductory Calculus-based Mechanics and Relativity"],
    ["BIOL 101", "BIO1", 3, "Principles of Biology"],
    ["COMP 110", "CS1", 3, "Introduction to Programming and Data Science"],
    ["COMP 210", "CS2", 3, "Data Structures and Analysis"],
    ["PSYC 101", "PSY", 3, "General Psychology"],
    ["ECON 101", "MICROECON", 4, "Introduction to Economics"],
    ["HIST 127", "USH1", 3, "American History to 1865"],
    ["POLI 100", "GOVT", 3, "Introduction to Government in the United States"],
    ["COMM 113", "COMM", 3, "Public Speaking"],
    ["SOCI 101", "SOC", 3, "Sociological Perspectives"],
    ["SPAN 101", "SPAN1", 4, "Elementary Spanish I"],
    ["PHIL 163", "ETHICS", 3, "Practical Ethics"],
    ["ARTH 151", "ARTH", 3, "History of Western Art I"],
    ["COMP 550", "ALGO", 3, "Algorithms and Analysis"],
    ["IDST 101", "FYE", 1, "College Thriving"],
  ]),
  inst("199193", "North Carolina State University at Raleigh", "Raleigh", "NC", "four_year_public", UNC, "channel_a", "NC State", "Registration and Records, NC State University", [
    ["ENG 101", "ENG1", 4, "Academic Writing and Research"],
    ["MA 141", "CALC1", 4, "Calculus I"],
    ["MA 241", "CALC2", 4, "Calculus II"],
    ["MA 242", "CALC3", 4, "Calculus III"],
    ["ST 311", "STATS", 3, "Introduction to Statistics", "U"],
    ["CH 101", "CHEM1", 3, "Chemistry - A Molecular Science"],
    ["CH 102", "CHEM1L", 1, "General Chemistry Laboratory"],
    ["PY 205", "PHYS1", 4, "Physics for Engineers and Scientists I"],
    ["BIO 181", "BIO1", 4, "Introductory Biology I"],
    ["CSC 116", "CS1", 3, "Introduction to Computing - Java"],
    ["CSC 216", "CS2", 3, "Software Development Fundamentals"],
    ["PSY 200", "PSY", 3, "Introduction to Psychology"],
    ["EC 205", "MICROECON", 3, "Fundamentals of Economics"],
    ["HI 251", "USH1", 3, "Early American History"],
    ["PS 201", "GOVT", 3, "Introduction to American Government"],
    ["COM 110", "COMM", 3, "Public Speaking"],
    ["SOC 202", "SOC", 3, "Principles of Sociology"],
    ["ACC 210", "ACCT1", 3, "Accounting I: Concepts of Financial Reporting"],
    ["E 101", "ENGR", 1, "Introduction to Engineering and Problem Solving"],
  ]),
];

// ---------------------------------------------------------------------------
// Exported institutions and courses
// ---------------------------------------------------------------------------

export const seedInstitutions: SeedInstitution[] = INSTITUTIONS.map(
  ({ ipedsId, name, city, state, type, system, source }): SeedInstitution => ({ ipedsId, name, city, state, type, system, source }),
);

export const seedCourses: SeedCourse[] = INSTITUTIONS.flatMap((i) =>
  i.courses.map(([code, key, credits, title, level]) => ({ inst: i, code, key, credits, title, level })),
).map(({ inst: i, code, key, credits, title, level }, n): SeedCourse => {
  const s = subject(key);
  const upper = i.type !== "community_college" && (level === "U" || (level === undefined && s.year >= 3));
  return {
    ipedsId: i.ipedsId,
    code,
    title,
    credits,
    level: upper ? "upper" : "lower",
    // Roughly one course in thirteen has no catalog description on file.
    description: n % 13 === 6 ? null : s.desc,
    cipCode: s.cip,
  };
});

// ---------------------------------------------------------------------------
// Equivalencies
// ---------------------------------------------------------------------------

const BY_ID = new Map<string, InstDef>(INSTITUTIONS.map((i) => [i.ipedsId, i]));

function institution(ipedsId: string): InstDef {
  const found = BY_ID.get(ipedsId);
  if (!found) throw new Error(`sandbox seed: unknown institution ${ipedsId}`);
  return found;
}

const DEPARTMENT: Record<Area, string> = {
  ENG: "Department of English", MATH: "Department of Mathematics", STAT: "Department of Statistics",
  BIO: "Department of Biology", CHEM: "Department of Chemistry", PHYS: "Department of Physics",
  PSY: "Department of Psychology", SOC: "Department of Sociology", ANTH: "Department of Anthropology",
  ECON: "Department of Economics", HIST: "Department of History", GOV: "Department of Political Science",
  PHIL: "Department of Philosophy", SPAN: "Department of Spanish and Portuguese", COMM: "Department of Communication",
  CS: "Department of Computer Science", ACCT: "School of Accountancy", FIN: "Department of Finance",
  MKT: "Department of Marketing", ART: "Department of Art History", MUS: "School of Music",
  CRIM: "Department of Criminal Justice", NUTR: "Department of Nutrition", ENGR: "College of Engineering",
  EDUC: "College of Education", GEN: "Office of the Registrar",
};

/** Prefix used for elective credit when the target has no course in the area. */
const ELECTIVE_PREFIX: Record<Area, string> = {
  ENG: "ENGL", MATH: "MATH", STAT: "STAT", BIO: "BIOL", CHEM: "CHEM", PHYS: "PHYS", PSY: "PSYC",
  SOC: "SOC", ANTH: "ANTH", ECON: "ECON", HIST: "HIST", GOV: "POLS", PHIL: "PHIL", SPAN: "SPAN",
  COMM: "COMM", CS: "CS", ACCT: "ACCT", FIN: "FIN", MKT: "MKT", ART: "ARTH", MUS: "MUS",
  CRIM: "CRIM", NUTR: "NUTR", ENGR: "ENGR", EDUC: "EDUC", GEN: "ELEC",
};

/** Subject prefix and length of the course number: "COLWRIT R1A" -> COLWRIT/1, "ENG-1010" -> ENG/4. */
function splitCode(code: string): { prefix: string; digits: number } {
  const first = code.search(/\d/);
  if (first < 0) return { prefix: code, digits: 3 };
  const space = code.lastIndexOf(" ", first);
  const prefix = (space > 0 ? code.slice(0, space) : code.slice(0, first)).replace(/[-\s]+$/, "");
  const digits = /^\d+/.exec(code.slice(first))![0].length;
  return { prefix, digits };
}

/** Elective placeholder in the target's own numbering style, e.g. "BIOL 1XX" or "HIST 1XXX". */
function electiveCode(target: InstDef, key: SubjectKey): string {
  const s = subject(key);
  const sameArea = target.courses.find(([, k]) => subject(k).area === s.area);
  const digits = splitCode(target.courses[0]![0]).digits;
  let prefix = sameArea ? splitCode(sameArea[0]).prefix : ELECTIVE_PREFIX[s.area];
  // Writing-program prefixes (e.g. COLWRIT, RHE, UWP) are not used for literature or general English electives.
  if (s.area === "ENG" && !/^EN/.test(prefix)) prefix = ELECTIVE_PREFIX.ENG;
  return `${prefix} ${Math.min(s.year, 2)}${"X".repeat(Math.max(digits - 1, 2))}`;
}

const POLICY: Record<string, string[]> = {
  UC: ["ASSIST articulation agreement 2024-25", "ASSIST articulation agreement 2023-24", "UC Transfer Pathways 2024-25"],
  CSU: ["ASSIST articulation agreement 2024-25", "C-ID course descriptor alignment", "Associate Degree for Transfer (ADT) pathway"],
  TX: ["Texas Common Course Numbering System", "Texas Core Curriculum transfer guarantee", "Lower-Division Academic Course Guide Manual (ACGM)"],
  FL: ["Florida Statewide Course Numbering System", "Florida Statewide Articulation Agreement (Rule 6A-10.024)"],
  CUNY: ["CUNY Pathways Common Core", "CUNY Transfer Explorer course equivalency"],
  SUNY: ["SUNY Transfer Path", "SUNY General Education Framework"],
  VA: ["Virginia Guaranteed Admission Agreement", "VCCS Uniform Certificate of General Studies", "Virginia Transfer Passport"],
  WA: ["Direct Transfer Agreement (DTA)", "Washington Common Course Numbering", "Associate in Science-Transfer (AS-T) Track 2"],
  AZ: ["AZTransfer Course Equivalency Guide 2024-25", "Arizona General Education Curriculum (AGEC-S)"],
  OH: ["Ohio Transfer Assurance Guide (TAG)", "Ohio Transfer 36"],
  NC: ["NC Comprehensive Articulation Agreement", "Universal General Education Transfer Component (UGETC)"],
  PRIVATE: ["Institutional transfer credit policy", "Faculty course-by-course evaluation"],
};

function policyFor(src: InstDef, tgt: InstDef, n: number): string {
  let pool: string[];
  if (tgt.type === "four_year_private") pool = POLICY.PRIVATE!;
  else if (tgt.system === UC) pool = src.type === "community_college" ? POLICY.UC! : POLICY.PRIVATE!;
  else if (tgt.system === CSU) pool = POLICY.CSU!;
  else if (tgt.system === CUNY && src.system === CUNY) pool = POLICY.CUNY!;
  else if (tgt.system === CUNY || tgt.system === SUNY) pool = tgt.system === CUNY ? POLICY.CUNY! : POLICY.SUNY!;
  else pool = POLICY[tgt.state] ?? POLICY.PRIVATE!;
  return pool[n % pool.length]!;
}

/** The same basis after the annual review (used by policy-only changes). */
function renewedPolicy(basis: string): string {
  return basis.includes("2024-25") ? basis.replace("2024-25", "2025-26") : `${basis} (2025-26 review)`;
}

interface NoteContext { src: string; tgt: string; srcName: string; tgtName: string; dept: string; pct: number; elective: boolean; }
type Note = (c: NoteContext) => string;

const NOTES = {
  pendingToAccepted: [
    (c) => `Faculty review completed; content matches ${c.pct}% of learning outcomes`,
    (c) => `${c.dept} approved ${c.src} ${c.elective ? `for elective credit as ${c.tgt}` : `as equivalent to ${c.tgt}`} after syllabus review`,
    (c) => `Syllabus, textbook and assessment review complete; approved for ${c.elective ? "elective credit" : "direct equivalency"}`,
    (c) => c.elective
      ? `Articulation officer confirmed ${c.src} transfers as ${c.tgt} elective credit toward the degree`
      : `Articulation officer confirmed ${c.src} satisfies the ${c.tgt} requirement`,
  ],
  pendingToConflict: [
    (c) => `Channel B reported a different target for ${c.src}; flagged for reconciliation`,
    () => "Submitted decision conflicts with the agreement of record; escalated to the registrar",
    (c) => `Faculty reviewer found only ${c.pct - 25}% overlap in learning outcomes; equivalency disputed`,
  ],
  conflictToPending: [
    (c) => `Conflict escalated to the ${c.dept.replace(/^(Department|School|College|Office) of /, "")} faculty for re-review with the current course outline`,
    (c) => `${c.srcName} submitted a revised course outline for ${c.src}; decision reopened`,
  ],
  conflictToAccepted: [
    (c) => `Registrar reconciled channel reports; mapping to ${c.tgt} confirmed`,
    () => "Articulation officer verified the agreement of record; conflicting report withdrawn",
  ],
  acceptedToConflict: [
    (c) => c.elective
      ? `${c.tgtName} catalog revision retired the ${c.tgt} elective category; equivalency flagged for re-review`
      : `${c.tgtName} catalog revision changed the credit hours for ${c.tgt}; equivalency flagged for re-review`,
    (c) => c.elective
      ? `Channel A reported ${c.src} as non-transferable; conflicts with the existing elective credit decision`
      : `Channel A reported ${c.src} as elective credit only; conflicts with the existing direct equivalency`,
    (c) => `${c.srcName} revised the ${c.src} course outline (new prerequisite); existing decision no longer verified`,
  ],
  renewal: [
    () => "Agreement renewed for the 2025-26 catalog year; no content changes",
    () => "Policy reference updated after the annual articulation review",
  ],
} satisfies Record<string, Note[]>;

function pick(list: Note[], n: number, c: NoteContext): string {
  return list[n % list.length]!(c);
}

/**
 * Life-cycle templates, cycled over the generated equivalencies. Letters are the
 * status at each version (A accepted, P pending, C conflict); "R" is a policy
 * renewal that keeps the status. Final statuses over one cycle of twenty:
 * 12 accepted, 5 pending, 3 conflict; 7 of the 20 carry a history.
 */
const LIFECYCLES = [
  "A", "A", "P", "A", "PA", "C", "A", "P", "A", "AR",
  "PC", "A", "CPA", "P", "A", "AC", "A", "CP", "PCP", "A",
] as const;

/** Which pending-at-creation slots have no decider / no policy recorded yet. */
const UNDECIDED_SLOTS = new Set([2, 4]);
const NO_POLICY_SLOTS = new Set([4, 13]);

const PROVENANCE: Channel[] = ["channel_a", "direct", "channel_b", "channel_a", "direct", "channel_a", "channel_b"];

const STATUS = { A: "accepted", P: "pending", C: "conflict" } as const;

interface Route { from: string; to: string; take: number; electives: number; }
const route = (from: string, to: string, take: number, electives = 1): Route => ({ from, to, take, electives });

const ROUTES: Route[] = [
  // California: community colleges to UC, CSU and private universities
  route("113333", "110635", 4), route("113333", "110644", 4), route("113333", "122755", 3), route("113333", "243744", 2),
  route("121044", "110662", 4), route("121044", "110680", 3), route("121044", "110583", 3), route("121044", "123961", 2),
  route("113634", "110635", 3), route("113634", "110644", 3), route("113634", "122755", 3),
  route("120342", "110662", 3), route("120342", "110680", 3), route("120342", "110583", 3), route("120342", "122409", 3),
  route("122755", "110644", 2, 0), route("110680", "110662", 2, 0),
  // Texas
  route("228547", "228778", 4), route("228547", "225511", 4), route("228547", "228459", 3), route("228547", "228246", 2),
  route("227854", "228778", 3), route("227854", "228459", 3),
  route("224642", "228778", 3), route("224642", "228723", 3), route("224642", "225511", 3, 0),
  route("223427", "228723", 4), route("223427", "228459", 3), route("223427", "227757", 2),
  route("225511", "228778", 2, 0),
  // Florida: university to university under the statewide numbering system
  route("133951", "134130", 3, 0), route("132903", "134130", 3), route("137351", "134097", 3, 0),
  route("134097", "132903", 3), route("135726", "133951", 2), route("136950", "132903", 2, 0),
  route("134130", "137351", 3),
  // New York
  route("190521", "190594", 4), route("190521", "190512", 3), route("190521", "196097", 3),
  route("190628", "190594", 3), route("190628", "190512", 2),
  route("191719", "196088", 3), route("191719", "196097", 3), route("191719", "195003", 2),
  route("193326", "196088", 4), route("193326", "195003", 3),
  route("190594", "190512", 2), route("193900", "196097", 2, 0),
  // Virginia
  route("232946", "232186", 4), route("232946", "234030", 3), route("232946", "234076", 3), route("232946", "233921", 3),
  route("232946", "233374", 2),
  route("233772", "232982", 4), route("233772", "234030", 3), route("233772", "233921", 2),
  route("232414", "234030", 4), route("232414", "234076", 3),
  // Washington
  route("236610", "236948", 4), route("236610", "236939", 3), route("236610", "237011", 3), route("236610", "236595", 2),
  route("236656", "236948", 3), route("236656", "237011", 3), route("236656", "236939", 2),
  // Arizona
  route("105154", "104151", 4), route("105154", "104179", 3), route("105154", "105330", 3), route("105154", "104586", 2),
  route("105428", "104151", 3), route("105428", "105330", 3),
  route("105525", "104179", 4), route("105525", "104151", 3),
  // Ohio
  route("202222", "204796", 4), route("202222", "201885", 3), route("202222", "203517", 3),
  route("202356", "203517", 3), route("202356", "204796", 3), route("202356", "201645", 2),
  // North Carolina
  route("199856", "199193", 4), route("199856", "199120", 3),
  route("198260", "199120", 3), route("198260", "199193", 3),
];

interface Candidate { src: InstDef; tgt: InstDef; code: string; key: SubjectKey; courseCode?: string; targetCode?: string; }

function candidates(): Candidate[] {
  const out: Candidate[] = [];
  ROUTES.forEach((r, ri) => {
    const src = institution(r.from);
    const tgt = institution(r.to);
    const targetByKey = new Map<SubjectKey, string>(tgt.courses.map(([code, key]) => [key, code]));
    const matched = src.courses.filter(([, key]) => targetByKey.has(key) && subject(key).cip !== null);
    const unmatched = src.courses.filter(([, key]) => !targetByKey.has(key) && subject(key).cip !== null);
    const rotate = <T>(list: T[], count: number, offset: number): T[] =>
      list.length === 0 ? [] : Array.from({ length: Math.min(count, list.length) }, (_, k) => list[(offset + k) % list.length]!);
    for (const [code, key] of rotate(matched, r.take, ri * 5)) {
      out.push({ src, tgt, code, key, courseCode: targetByKey.get(key)! });
    }
    for (const [code, key] of rotate(unmatched, r.electives, ri * 3)) {
      out.push({ src, tgt, code, key, targetCode: electiveCode(tgt, key) });
    }
  });
  return out;
}

function buildEquivalency(c: Candidate, n: number): SeedEquivalency {
  const slot = n % LIFECYCLES.length;
  const life = LIFECYCLES[slot]!;
  const area = subject(c.key).area;
  const office = c.tgt.office;
  const dept = `${DEPARTMENT[area]}, ${c.tgt.short}`;
  const basis = policyFor(c.src, c.tgt, n);
  // Note variants rotate per cycle so that a life-cycle slot does not always get the same wording.
  const variant = Math.floor(n / LIFECYCLES.length);
  const ctx: NoteContext = {
    src: c.code,
    tgt: c.courseCode ?? c.targetCode ?? "",
    srcName: c.src.short,
    tgtName: c.tgt.short,
    dept: DEPARTMENT[area],
    pct: 72 + ((n * 7) % 24),
    elective: c.targetCode !== undefined,
  };

  const first = STATUS[life[0] as "A" | "P" | "C"];
  let decidedBy: string | null = n % 3 === 2 ? dept : office;
  let policyBasis: string | null = basis;
  if (first === "pending" && UNDECIDED_SLOTS.has(slot)) decidedBy = null;
  if (first === "pending" && NO_POLICY_SLOTS.has(slot)) policyBasis = null;

  const eq: SeedEquivalency = {
    source: { ipedsId: c.src.ipedsId, code: c.code },
    target: c.courseCode !== undefined
      ? { ipedsId: c.tgt.ipedsId, courseCode: c.courseCode }
      : { ipedsId: c.tgt.ipedsId, targetCode: c.targetCode! },
    status: first,
    decidedBy,
    policyBasis,
    provenance: PROVENANCE[n % PROVENANCE.length]!,
  };

  const history: SeedChange[] = [];
  let current = first;
  let curDecidedBy = decidedBy;
  let curPolicy = policyBasis;
  for (let k = 1; k < life.length; k++) {
    const letter = life[k]!;
    if (letter === "R") {
      const next = renewedPolicy(curPolicy ?? basis);
      history.push({ policyBasis: next, note: pick(NOTES.renewal, variant, ctx) });
      curPolicy = next;
      continue;
    }
    const next = STATUS[letter as "A" | "P" | "C"];
    const change: SeedChange = { status: next, note: "" };
    if (current === "pending" && next === "accepted") {
      change.note = pick(NOTES.pendingToAccepted, variant + k, ctx);
      if (curDecidedBy === null) { change.decidedBy = dept; curDecidedBy = dept; }
      if (curPolicy === null) { change.policyBasis = basis; curPolicy = basis; }
    } else if (current === "pending" && next === "conflict") {
      change.note = pick(NOTES.pendingToConflict, variant + k, ctx);
      if (curDecidedBy === null) { change.decidedBy = office; curDecidedBy = office; }
    } else if (current === "conflict" && next === "pending") {
      change.note = pick(NOTES.conflictToPending, variant + k, ctx);
    } else if (current === "conflict" && next === "accepted") {
      change.note = pick(NOTES.conflictToAccepted, variant + k, ctx);
      if (curDecidedBy !== office) { change.decidedBy = office; curDecidedBy = office; }
    } else if (current === "accepted" && next === "conflict") {
      change.note = pick(NOTES.acceptedToConflict, variant + k, ctx);
    } else {
      throw new Error(`sandbox seed: transition ${current} -> ${next} is not allowed`);
    }
    history.push(change);
    current = next;
  }
  if (history.length > 0) eq.history = history;
  return eq;
}

/**
 * Hand-written records for first-year seminars, which rarely have a counterpart:
 * no target course and (at creation) no target code.
 */
const WITHOUT_TARGET: SeedEquivalency[] = [
  {
    source: { ipedsId: "232946", code: "SDV 100" },
    target: { ipedsId: "232186" },
    status: "pending", decidedBy: null, policyBasis: null, provenance: "channel_a",
  },
  {
    source: { ipedsId: "105154", code: "CPD150" },
    target: { ipedsId: "104151" },
    status: "conflict", decidedBy: "Registrar, Arizona State University", policyBasis: "AZTransfer Course Equivalency Guide 2024-25", provenance: "channel_b",
    history: [
      { status: "pending", note: "Course Equivalency Guide lists CPD150 as non-transferable while channel B reported elective credit; reopened for review" },
    ],
  },
  {
    source: { ipedsId: "202222", code: "COLS 1100" },
    target: { ipedsId: "204796" },
    status: "pending", decidedBy: null, policyBasis: null, provenance: "direct",
    history: [
      {
        status: "accepted", decidedBy: "Transfer Credit Center, The Ohio State University", policyBasis: "Ohio Transfer 36",
        targetCode: "GENED 1XXX", note: "Accepted as general elective credit; does not replace the OSU survey course requirement",
      },
    ],
  },
  {
    source: { ipedsId: "199856", code: "ACA 122" },
    target: { ipedsId: "199193" },
    status: "conflict", decidedBy: "Registration and Records, NC State University", policyBasis: "NC Comprehensive Articulation Agreement", provenance: "channel_a",
  },
  {
    source: { ipedsId: "233772", code: "SDV 100" },
    target: { ipedsId: "232982" },
    status: "pending", decidedBy: null, policyBasis: "Virginia Guaranteed Admission Agreement", provenance: "channel_a",
    history: [
      {
        status: "accepted", decidedBy: "Transfer Credit Evaluation, Old Dominion University",
        targetCode: "UNIV 1XX", note: "Approved for one credit of university elective under the guaranteed admission agreement",
      },
    ],
  },
  {
    source: { ipedsId: "193326", code: "FYE 100" },
    target: { ipedsId: "195003" },
    status: "pending", decidedBy: null, policyBasis: null, provenance: "direct",
  },
  {
    source: { ipedsId: "232414", code: "SDV 100" },
    target: { ipedsId: "234030" },
    status: "pending", decidedBy: null, policyBasis: "Virginia Transfer Passport", provenance: "channel_b",
    history: [
      { status: "conflict", decidedBy: "Transfer Center, Virginia Commonwealth University", note: "Passport lists SDV 100 outside the transferable core; channel report claims UNIV 101 equivalency" },
    ],
  },
];

export const seedEquivalencies: SeedEquivalency[] = [
  ...candidates().map(buildEquivalency),
  ...WITHOUT_TARGET,
];
