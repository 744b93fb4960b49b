// A labelled corpus for memory's recall quality (issue #12): the memories an
// assistant keeps about one person, Dana, a staff engineer — preferences,
// project facts, procedures, episodes, people — plus templated worklog
// entries that share their words (the repetitive episodic memories that
// compete in a real store). Each query lists the records that answer it.
// Queries paraphrase ("hot drinks" for coffee), use a few of the record's
// words, or other forms of them ("refunds", "deployments", "Irish"), so a
// word-matching recall does not score 1.0. Deterministic: no randomness
// outside the seeded worklog. Used by bench/memory-quality.mjs and
// test/memory-quality.test.ts.
import { prng } from './tree-gen.mjs';

/** @typedef {{ id: string, topic: string, kind: 'fact'|'episode'|'procedure', text: string }} CorpusRecord */
/** @typedef {{ text: string, relevant: string[], style: 'subset'|'forms'|'paraphrase' }} CorpusQuery */

// biome-ignore format: hand-written memories, one per line
const PREFERENCES = [
  ['pref-coffee', 'Dana takes her coffee black with no sugar; in the afternoon she switches to green tea.'],
  ['pref-meetings', 'Dana prefers meetings after 10:00 and keeps Friday afternoons free of meetings for focus work.'],
  ['pref-timezone', 'Dana lives in Lisbon and works on Western European Time; schedule calls with the Tokyo team before 9:00 her time.'],
  ['pref-editor', 'Dana uses Neovim with a dark theme and the JetBrains Mono font at size 14.'],
  ['pref-indent', 'In every repository Dana wants two-space indentation and single quotes in TypeScript.'],
  ['pref-diet', 'Dana is vegetarian and allergic to peanuts; never book restaurants without vegetarian options.'],
  ['pref-summary', 'Dana likes short summaries: three bullet points at most, with the decision first.'],
  ['pref-notifications', 'Do not send Slack notifications to Dana after 19:00 unless production is down.'],
  ['pref-language', 'Dana writes in English at work but prefers Portuguese for personal messages.'],
  ['pref-travel-seat', 'On flights Dana wants an aisle seat near the front and no overnight layovers.'],
  ['pref-hotel', 'For business trips Dana picks hotels within walking distance of the office, with a gym.'],
  ['pref-git', 'Dana squashes commits before merging and writes commit messages in the imperative mood.'],
  ['pref-tests', 'Dana wants every bug fix to come with a regression test that fails before the fix.'],
  ['pref-review', 'Code reviews for Dana should point out risks first and style nits last, marked as optional.'],
  ['pref-music', 'While coding Dana listens to instrumental jazz playlists; lyrics distract her.'],
  ['pref-exercise', 'Dana runs five kilometres on Tuesday and Thursday mornings, so she starts work at 9:30 on those days.'],
  ['pref-calendar', "Dana's calendar should show personal events as busy without their titles."],
  ['pref-docs', 'Dana prefers design documents in Markdown in the repository over Google Docs.'],
  ['pref-dashboards', 'Dana reads the latency dashboard in milliseconds at p99, not averages.'],
  ['pref-name', 'Dana goes by Dana, never Danielle, and uses she/her pronouns.'],
  ['pref-phone', 'Dana does not take phone calls without an agenda sent beforehand; video calls are fine.'],
  ['pref-lunch', 'Dana eats lunch at 12:30 and blocks that half hour in her calendar.'],
  ['pref-os', "Dana's work laptop runs macOS; her home machine runs Fedora Linux."],
  ['pref-browser', 'Dana uses Firefox with uBlock Origin and keeps work and personal profiles separate.'],
  ['pref-spelling', "Use British spelling in documents written for Dana's team: colour, organise, licence."],
  ['pref-estimates', 'When asked for estimates, give Dana a range with a confidence level rather than a single date.'],
  ['pref-shell', 'Dana\'s shell is fish, and she aliases git status to gs.'],
  ['pref-reading', 'Dana is reading a book on distributed systems and likes recommendations of papers on consensus.'],
  ['pref-holiday', 'Dana takes two weeks off every August and visits her family in Porto.'],
  ['pref-pets', 'Dana has a dog named Biscuit who needs a walk at 17:00, so she logs off by then.'],
];

// biome-ignore format: hand-written memories, one per line
const PROJECT_FACTS = [
  ['proj-atlas-stack', 'The atlas billing service is written in Go and stores invoices in PostgreSQL 16.'],
  ['proj-atlas-owner', 'Jonas owns the atlas invoice generator; questions about invoice PDFs go to him.'],
  ['proj-atlas-deploy', 'Atlas deploys to production through Argo CD from the main branch, every weekday at 14:00 UTC.'],
  ['proj-atlas-currency', 'Atlas stores amounts as integer cents and supports EUR, USD, GBP and JPY.'],
  ['proj-atlas-refunds', 'Refunds in atlas are processed by a nightly batch job, not in real time.'],
  ['proj-atlas-limits', 'The payment provider rate-limits atlas to 100 requests per second per merchant account.'],
  ['proj-atlas-tax', 'Tax rates in atlas come from the tax_rates table, refreshed monthly from the finance spreadsheet.'],
  ['proj-harbor-stack', 'Harbor, the data pipeline, runs on Apache Airflow with Spark jobs on Kubernetes.'],
  ['proj-harbor-owner', 'Aiko is the tech lead of harbor and approves schema changes to the warehouse.'],
  ['proj-harbor-schedule', 'The harbor nightly ETL starts at 01:00 UTC and must finish before 06:00 for the morning reports.'],
  ['proj-harbor-warehouse', 'Harbor loads into a Snowflake warehouse; raw tables are kept for 90 days.'],
  ['proj-harbor-pii', 'Personal data in harbor must be hashed before it leaves the ingestion layer.'],
  ['proj-kestrel-stack', 'Kestrel is the mobile app, built with React Native and released through the App Store and Google Play.'],
  ['proj-kestrel-release', 'Kestrel releases every second Wednesday; the release captain rotates among the mobile engineers.'],
  ['proj-kestrel-flags', 'Kestrel feature flags live in LaunchDarkly; new features ship dark behind a flag.'],
  ['proj-kestrel-crash', 'Crash reports for kestrel go to Sentry; the crash-free sessions target is 99.5%.'],
  ['proj-kestrel-design', "Mei owns kestrel's design system; new components need her sign-off in Figma."],
  ['proj-repo-layout', 'The monorepo keeps services under services/, shared libraries under libs/ and infrastructure in infra/.'],
  ['proj-ci', 'CI runs on GitHub Actions; a pull request needs two approvals and green checks to merge.'],
  ['proj-staging', 'The staging environment is reset every Sunday night from an anonymised production snapshot.'],
  ['proj-oncall', 'On-call rotates weekly on Mondays at 10:00; the schedule is in PagerDuty.'],
  ['proj-slo', 'The atlas API has an availability SLO of 99.9% measured over 30 days.'],
  ['proj-incident-channel', 'Incidents are coordinated in the #inc-war-room Slack channel, one thread per incident.'],
  ['proj-secrets', 'Service credentials are kept in HashiCorp Vault; nobody pastes tokens into tickets.'],
  ['proj-db-migrations', 'Database migrations are written with goose and must be backward compatible for one release.'],
  ['proj-observability', 'Metrics go to Prometheus and traces to Tempo; Grafana dashboards are defined as code.'],
  ['proj-budget', 'The cloud budget for the platform team is 40,000 euros a month; alerts fire at 80%.'],
  ['proj-quarter-goal', "This quarter's goal is to cut atlas p99 latency from 800 ms to under 300 ms."],
  ['proj-deprecation', 'The legacy PHP invoicing app is deprecated and will be switched off on 31 March.'],
  ['proj-api-versioning', 'Public APIs are versioned in the URL path (/v1/, /v2/) and old versions live for 12 months.'],
  ['proj-code-owners', 'CODEOWNERS assigns reviews: payments code to the atlas team, pipelines to the data team.'],
  ['proj-languages', 'New backend services are written in Go; Python is allowed only for data jobs.'],
  ['proj-queue', 'Asynchronous work goes through RabbitMQ; the dead-letter queue is checked every morning.'],
  ['proj-search', 'Customer search uses Elasticsearch 8, reindexed from PostgreSQL every hour.'],
  ['proj-cdn', 'Static assets are served by Cloudflare; cache purges need an approval in the #infra channel.'],
  ['proj-customers', 'The biggest customer is Northwind Traders, about 30% of revenue; treat their tickets as high priority.'],
  ['proj-sla', 'Enterprise customers have a support SLA of a four-hour first response.'],
  ['proj-hiring', 'The team is hiring two backend engineers; Dana interviews for system design.'],
  ['proj-office', 'The Lisbon office is on the fourth floor; the quiet room is booked through Robin.'],
  ['proj-mobile-team', 'The mobile team is led by Ravi and sits in the Berlin office.'],
];

// biome-ignore format: hand-written memories, one per line
const PROCEDURES = [
  ['proc-rollback', 'To roll back atlas, revert the release commit on main and let Argo CD sync; do not edit the cluster by hand.'],
  ['proc-hotfix', 'A hotfix branch is cut from the last release tag, fixed, tagged with a patch version and merged back into main.'],
  ['proc-release-kestrel', 'To release kestrel: freeze the branch on Monday, run the QA checklist, upload builds, then submit for review.'],
  ['proc-db-restore', 'To restore the atlas database, pick the snapshot from the backup bucket, restore it to a new instance and switch the connection string.'],
  ['proc-rotate-creds', 'Rotating a service credential: create the new secret in Vault, deploy readers, then revoke the old one after a day.'],
  ['proc-oncall-handoff', 'At on-call handoff write a note in the channel with open incidents, silenced alerts and anything flaky.'],
  ['proc-incident', 'When an incident starts: declare it in #inc-war-room, name an incident commander, then post updates every 30 minutes.'],
  ['proc-postmortem', 'Every incident of severity 2 or higher gets a blameless postmortem within five working days.'],
  ['proc-new-service', 'To create a new service, copy the service template, register it in the service catalogue and add dashboards.'],
  ['proc-schema-change', "A warehouse schema change needs a ticket, Aiko's approval and a backfill plan before it is merged."],
  ['proc-expense', 'Expenses are submitted in Pleo within 30 days with a photo of the receipt.'],
  ['proc-vacation', 'Request vacation in the HR portal at least two weeks ahead and tell Priya in your one-on-one.'],
  ['proc-access', 'Production access is requested through an Opal ticket and expires after eight hours.'],
  ['proc-flaky-test', 'A flaky test is quarantined with the flaky tag and a ticket, then fixed within a sprint.'],
  ['proc-pr', "Open pull requests as drafts, fill in the template's testing section and request review from code owners."],
  ['proc-dependency', 'Dependency upgrades are batched weekly by Renovate; major versions need a human review.'],
  ['proc-refund-manual', "To issue a refund by hand, use the admin console's refund form and attach the ticket number."],
  ['proc-invoice-resend', 'To resend an invoice, find it in atlas admin by invoice number and click resend; the PDF is regenerated.'],
  ['proc-cache-purge', 'To purge the CDN cache, ask in #infra, then run the purge job with the path prefix.'],
  ['proc-dlq', 'When messages pile up in the dead-letter queue, inspect a sample, fix the consumer, then replay them with the replay tool.'],
  ['proc-onboarding', 'New engineers get a buddy, a laptop on day one and their first pull request merged in week one.'],
  ['proc-reindex', 'If search results are stale, trigger a full Elasticsearch reindex from the ops dashboard; it takes about forty minutes.'],
  ['proc-alert-silence', 'Alerts may be silenced for at most 24 hours, with a link to the ticket in the silence comment.'],
  ['proc-load-test', 'Before a release that touches the payment path, run the load test against staging at twice peak traffic.'],
  ['proc-escalation', 'Escalations from enterprise customers go to the account manager first and then to the on-call engineer.'],
  ['proc-data-deletion', "A customer's request to delete their data is handled within 30 days: remove it from PostgreSQL, the warehouse and backups."],
  ['proc-flag-cleanup', 'Remove a feature flag within two releases after it reaches 100% rollout.'],
  ['proc-standup', 'The daily standup is at 09:45, written in the #team-standup channel on Fridays instead of a call.'],
  ['proc-triage', 'Support tickets are triaged every morning: label, assign a priority and link duplicates.'],
  ['proc-backup-check', 'Once a month someone restores a backup into a scratch instance to prove the backups work.'],
];

// biome-ignore format: hand-written memories, one per line
const EPISODES = [
  ['ep-outage-march', 'On 12 March atlas was down for 47 minutes because a migration locked the invoices table.'],
  ['ep-outage-dns', "In January a DNS misconfiguration took kestrel's API offline for users in Asia for two hours."],
  ['ep-refund-bug', 'Last sprint a rounding bug made refunds one cent short for JPY payments; fixed by using integer arithmetic.'],
  ['ep-promotion', 'Dana was promoted to staff engineer in October.'],
  ['ep-harbor-late', 'The harbor nightly job ran late three times last week because the Spark cluster ran out of memory.'],
  ['ep-northwind-call', 'On Tuesday Dana had a call with Northwind Traders about duplicate invoices; they want a fix by month end.'],
  ['ep-design-review', 'The design review for the new ledger was postponed to next Thursday because Jonas was ill.'],
  ['ep-conference', 'Dana gave a talk on idempotent payment APIs at a Go conference in Amsterdam.'],
  ['ep-laptop', "Dana's laptop was replaced after the keyboard failed; her dotfiles were restored from GitHub."],
  ['ep-go-migration', 'The team finished moving the invoice generator from PHP to Go in February.'],
  ['ep-cost-spike', 'Cloud costs spiked by 25% in May because of an unbounded log retention setting.'],
  ['ep-security-audit', 'An external security audit in April found no critical issues, two medium ones in session handling.'],
  ['ep-kestrel-rating', "After the 4.2 release kestrel's App Store rating dropped to 3.9 because of a login loop."],
  ['ep-intern', 'Sam, the summer intern, built the invoice preview feature and presented it at the demo day.'],
  ['ep-latency-win', 'Adding an index on invoices(customer_id, created_at) cut atlas p99 latency from 800 to 450 ms.'],
  ['ep-priya-feedback', 'In the last one-on-one Priya asked Dana to mentor Sam and to write the ledger design doc.'],
  ['ep-offsite', 'The team offsite in June was in Sintra; the retro said deploys felt too slow.'],
  ['ep-vendor-switch', 'The team switched email providers from Mailgun to Postmark after deliverability problems.'],
  ['ep-leak-scare', 'A debug log once printed customer emails in staging; the logger now masks them.'],
  ['ep-hackathon', "Dana's hackathon team won with a tool that explains failed CI runs."],
  ['ep-paged', 'Dana was paged at 03:00 last Saturday for a full disk on the RabbitMQ node.'],
  ['ep-churn', 'Contoso cancelled their contract in September, citing slow support responses.'],
  ['ep-ledger-split', 'The ledger refactor was split into four pull requests after reviewers found the first one too large.'],
  ['ep-dark-mode', 'Kestrel shipped dark mode in version 4.3 behind a feature flag.'],
  ['ep-ci-slow', 'CI times doubled to 24 minutes in July until test sharding was turned on.'],
  ['ep-tax-error', 'Invoices for Ireland used the wrong VAT rate for a week because the tax table was not refreshed.'],
  ['ep-birthday', "The team celebrated Dana's birthday on 14 May with a cake from the bakery downstairs."],
  ['ep-relocation', 'Dana moved from London to Lisbon two years ago.'],
  ['ep-v1-sunset', 'The v1 payments API was sunset in November after all customers moved to v2.'],
  ['ep-course', 'Dana finished an online course on Kubernetes operators last month.'],
];

// biome-ignore format: hand-written memories, one per line
const PEOPLE = [
  ['person-priya', "Priya Raman is Dana's manager and the engineering manager of the payments team."],
  ['person-tomas', 'Tomás Ortega is the site reliability engineer for atlas and knows the Argo CD setup best.'],
  ['person-mei', 'Mei Chen is the product designer for kestrel and prefers feedback in Figma comments.'],
  ['person-jonas', 'Jonas Weber is a backend engineer on atlas who wrote most of the invoice generator.'],
  ['person-aiko', 'Aiko Tanaka leads the data team and lives in Tokyo.'],
  ['person-sam', 'Sam Okoye was the summer intern and is returning as a graduate in January.'],
  ['person-ravi', 'Ravi Kumar leads the mobile team in Berlin.'],
  ['person-lena', 'Lena Fischer is the account manager for Northwind Traders.'],
  ['person-omar', 'Omar Haddad runs finance operations and owns the tax spreadsheet.'],
  ['person-grace', 'Grace Lee is the head of security and signs off on production access policies.'],
];

const WORKLOG_TEMPLATES = [
  (p) =>
    `Worklog ${p.date}: Dana reviewed ${p.n} pull requests in ${p.project} and left comments on ${p.topic}.`,
  (p) => `Worklog ${p.date}: paired with ${p.person} on ${p.topic} in ${p.project} for most of the morning.`,
  (p) => `Worklog ${p.date}: Dana spent the afternoon on ${p.topic}; the ${p.project} tests are green again.`,
  (p) => `Worklog ${p.date}: at standup ${p.person} said they are blocked on ${p.topic} in ${p.project}.`,
  (p) =>
    `Worklog ${p.date}: Dana answered a support question about ${p.topic} and linked the ${p.project} docs.`,
  (p) =>
    `Worklog ${p.date}: ${p.person} asked Dana to look at ${p.topic} before the next ${p.project} release.`,
];
// biome-ignore format: word lists
const WORKLOG_TOPICS = [
  'the ledger', 'invoice numbering', 'the retry policy', 'the Spark job configuration', 'the onboarding flow',
  'push notifications', 'webhook signatures', 'currency formatting', 'the audit log', 'dashboard panels',
  'the login screen', 'rate limiting', 'the Airflow DAGs', 'payment webhooks', 'unit tests', 'error messages',
  'the settings page', 'connection pooling', 'the CSV export', 'timezone handling',
];
const WORKLOG_PROJECTS = ['atlas', 'harbor', 'kestrel'];
const WORKLOG_PEOPLE = ['Jonas', 'Aiko', 'Mei', 'Tomás', 'Sam', 'Ravi'];
const WORKLOG_ENTRIES = 75;

/** Seeded worklog entries on the weekdays from 1 September 2026: distractors, relevant to no query. */
function worklog() {
  const rand = prng(0x10c);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const out = [];
  const day = new Date(Date.UTC(2026, 8, 1));
  while (out.length < WORKLOG_ENTRIES) {
    if (day.getUTCDay() !== 0 && day.getUTCDay() !== 6) {
      const text = pick(WORKLOG_TEMPLATES)({
        date: day.toISOString().slice(0, 10),
        n: 2 + Math.floor(rand() * 5),
        project: pick(WORKLOG_PROJECTS),
        topic: pick(WORKLOG_TOPICS),
        person: pick(WORKLOG_PEOPLE),
      });
      out.push([`log-${out.length + 1}`, text]);
    }
    day.setUTCDate(day.getUTCDate() + 1);
  }
  return out;
}

const as = (topic, kind, list) => list.map(([id, text]) => ({ id, topic, kind, text }));

/** @type {CorpusRecord[]} */
export const RECORDS = [
  ...as('preference', 'fact', PREFERENCES),
  ...as('project', 'fact', PROJECT_FACTS),
  ...as('procedure', 'procedure', PROCEDURES),
  ...as('episode', 'episode', EPISODES),
  ...as('person', 'fact', PEOPLE),
  ...as('worklog', 'episode', worklog()),
];

// biome-ignore format: one query per line: [text, relevant record ids, style]
const QUERY_ROWS = [
  ['how does Dana take her coffee', ['pref-coffee'], 'subset'],
  ['hot drinks she likes', ['pref-coffee'], 'paraphrase'],
  ['when can I schedule a meeting with Dana', ['pref-meetings'], 'forms'],
  ['what time zone is Dana in', ['pref-timezone'], 'forms'],
  ['which text editor and font does Dana use', ['pref-editor'], 'subset'],
  ['indentation rules for TypeScript', ['pref-indent'], 'subset'],
  ['food allergies and dietary restrictions', ['pref-diet'], 'paraphrase'],
  ['restaurant booking for a team dinner', ['pref-diet'], 'forms'],
  ['how long should summaries be', ['pref-summary'], 'subset'],
  ['can I message Dana late in the evening', ['pref-notifications'], 'paraphrase'],
  ['seat preference on planes', ['pref-travel-seat'], 'paraphrase'],
  ['hotel requirements for business trips', ['pref-hotel'], 'forms'],
  ['commit message style', ['pref-git'], 'forms'],
  ['does a bugfix need a test', ['pref-tests'], 'forms'],
  ['how to structure code review comments', ['pref-review'], 'forms'],
  ['music while programming', ['pref-music'], 'paraphrase'],
  ['why does Dana start late on Tuesdays', ['pref-exercise'], 'forms'],
  ['which spelling to use in docs', ['pref-spelling'], 'forms'],
  ['how to give Dana an estimate', ['pref-estimates'], 'forms'],
  ["Dana's pronouns", ['pref-name'], 'subset'],
  ['when is Dana on holiday', ['pref-holiday'], 'paraphrase'],
  ['what language is the billing service written in', ['proj-atlas-stack'], 'subset'],
  ['who should I ask about invoice PDFs', ['proj-atlas-owner', 'person-jonas'], 'subset'],
  ['when do atlas deployments happen', ['proj-atlas-deploy'], 'forms'],
  ['how are refunds processed', ['proj-atlas-refunds'], 'subset'],
  ['payment provider rate limit', ['proj-atlas-limits'], 'forms'],
  ['where do tax rates come from', ['proj-atlas-tax', 'person-omar'], 'subset'],
  ['what runs the data pipeline', ['proj-harbor-stack'], 'subset'],
  ['who approves warehouse schema changes', ['proj-harbor-owner', 'proc-schema-change'], 'subset'],
  ['deadline for the nightly ETL', ['proj-harbor-schedule'], 'subset'],
  ['how long are raw tables retained', ['proj-harbor-warehouse'], 'paraphrase'],
  ['handling personal data in the pipeline', ['proj-harbor-pii'], 'subset'],
  ['what framework is the mobile app built with', ['proj-kestrel-stack'], 'subset'],
  ['mobile release schedule', ['proj-kestrel-release', 'proc-release-kestrel'], 'forms'],
  ['where are feature flags managed', ['proj-kestrel-flags'], 'subset'],
  ['crash free target', ['proj-kestrel-crash'], 'subset'],
  ['how many approvals does a pull request need', ['proj-ci'], 'subset'],
  ['when is staging reset', ['proj-staging'], 'subset'],
  ['on-call rotation schedule', ['proj-oncall'], 'forms'],
  ['availability target of the billing API', ['proj-slo'], 'paraphrase'],
  ['where are secrets stored', ['proj-secrets', 'proc-rotate-creds'], 'paraphrase'],
  ['rules for database migrations', ['proj-db-migrations'], 'subset'],
  ['monthly cloud spending limit', ['proj-budget'], 'paraphrase'],
  ['quarterly latency goal', ['proj-quarter-goal'], 'forms'],
  ['when will the old PHP invoicing app be turned off', ['proj-deprecation'], 'paraphrase'],
  ['how long do old API versions stay', ['proj-api-versioning'], 'subset'],
  ['largest customer', ['proj-customers'], 'paraphrase'],
  ['enterprise response time commitment', ['proj-sla'], 'paraphrase'],
  ['how to roll back a bad atlas release', ['proc-rollback'], 'subset'],
  ['steps for a hotfix', ['proc-hotfix'], 'subset'],
  ['restore the billing database from backup', ['proc-db-restore'], 'subset'],
  ['rotate a credential', ['proc-rotate-creds'], 'forms'],
  ['what to do when an incident begins', ['proc-incident'], 'paraphrase'],
  ['postmortem deadline', ['proc-postmortem'], 'subset'],
  ['submitting expenses', ['proc-expense'], 'forms'],
  ['requesting production access', ['proc-access'], 'forms'],
  ['what to do with a flaky test', ['proc-flaky-test'], 'subset'],
  ['resend an invoice to a customer', ['proc-invoice-resend'], 'subset'],
  ['messages stuck in the dead letter queue', ['proc-dlq', 'proj-queue'], 'subset'],
  ['search results are out of date', ['proc-reindex'], 'paraphrase'],
  ["deleting a customer's data", ['proc-data-deletion'], 'forms'],
  ['what caused the March outage', ['ep-outage-march'], 'subset'],
  ['JPY refund rounding problem', ['ep-refund-bug'], 'forms'],
  ['what did Northwind complain about', ['ep-northwind-call'], 'paraphrase'],
  ['why did cloud costs go up in May', ['ep-cost-spike'], 'subset'],
  ['how was atlas latency improved', ['ep-latency-win'], 'paraphrase'],
  ["who is Dana's manager", ['person-priya'], 'subset'],
  ['who knows Argo CD best', ['person-tomas'], 'subset'],
  ['who leads the mobile team', ['person-ravi', 'proj-mobile-team'], 'subset'],
  ['account manager for Northwind', ['person-lena'], 'subset'],
  ['why did the app store rating drop', ['ep-kestrel-rating'], 'forms'],
  ['Dana got paged at night', ['ep-paged'], 'subset'],
  ['why did Contoso leave', ['ep-churn'], 'paraphrase'],
  ['wrong VAT for Irish invoices', ['ep-tax-error'], 'forms'],
  ['where did Dana live before Lisbon', ['ep-relocation'], 'forms'],
  ['what should I get Dana at the cafe', ['pref-coffee'], 'paraphrase'],
  ['is Dana a meat eater', ['pref-diet'], 'paraphrase'],
  ['when does Dana stop working for the day', ['pref-pets'], 'paraphrase'],
  ['how do we ship the billing service to prod', ['proj-atlas-deploy'], 'paraphrase'],
  ['who keeps the tax sheet', ['person-omar'], 'paraphrase'],
  ['who is our contact at Northwind', ['person-lena'], 'paraphrase'],
  ['which monitoring tools do we use', ['proj-observability'], 'paraphrase'],
  ['how do I get a new teammate started', ['proc-onboarding'], 'paraphrase'],
  ['what happened with the email vendor', ['ep-vendor-switch'], 'paraphrase'],
  ['what did the security review find', ['ep-security-audit'], 'paraphrase'],
  ['how often are dependencies updated', ['proc-dependency'], 'forms'],
  ['who signs off on access to prod', ['person-grace'], 'paraphrase'],
  ['is there a quiet place to work in the office', ['proj-office'], 'subset'],
  ['what went wrong with the login in the mobile app', ['ep-kestrel-rating'], 'paraphrase'],
  ['which papers would Dana enjoy', ['pref-reading'], 'subset'],
  ['how do we verify backups actually work', ['proc-backup-check'], 'subset'],
  ['why was the data job slow last week', ['ep-harbor-late'], 'paraphrase'],
  ['where do I report expenses for a trip', ['proc-expense'], 'forms'],
];

/** @type {CorpusQuery[]} */
export const QUERIES = QUERY_ROWS.map(([text, relevant, style]) => ({ text, relevant, style }));

/** The scope every corpus record is remembered in, and recalled from. */
export const CORPUS_SCOPE = { user: 'dana' };

/**
 * Loads the corpus into `memory` (a `store.memory(who)`), in order; returns
 * the map from the store's record ids to the corpus ids.
 */
export async function loadCorpus(memory) {
  const ids = new Map();
  for (const record of RECORDS) {
    const made = await memory.remember({
      scope: CORPUS_SCOPE,
      text: record.text,
      kind: record.kind,
      source: 'person',
    });
    ids.set(made.id, record.id);
  }
  return ids;
}

/**
 * Recall@k over the queries through `memory.recall` (full text): per query,
 * the share of its relevant records among the first k, averaged over the
 * queries; also per query style, and the queries that found none.
 */
export async function recallAtK(memory, ids, k = 5, mode = 'text') {
  const perStyle = new Map();
  const missed = [];
  let sum = 0;
  for (const query of QUERIES) {
    const items = (await memory.recall({ query: query.text, scope: CORPUS_SCOPE, k, mode })).items;
    const found = new Set(items.map((item) => ids.get(item.id)));
    const share = query.relevant.filter((id) => found.has(id)).length / query.relevant.length;
    sum += share;
    const style = perStyle.get(query.style) ?? { sum: 0, n: 0 };
    style.sum += share;
    style.n++;
    perStyle.set(query.style, style);
    if (share === 0) missed.push(query.text);
  }
  return {
    recall: sum / QUERIES.length,
    queries: QUERIES.length,
    byStyle: Object.fromEntries([...perStyle].map(([style, s]) => [style, { recall: s.sum / s.n, n: s.n }])),
    missed,
  };
}
