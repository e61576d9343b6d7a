/** Generated API records for benchmarks: realistic sizes, deterministic by index. */

const SLUGS = [
  'transco',
  'texas-eastern',
  'tennessee',
  'columbia',
  'anr',
  'ngpl',
  'northern-natural',
  'gulf-south',
];

/** The `i`-th notice, newest first, as the API sends it. */
export function wireNotice(i: number) {
  const posted = new Date(Date.UTC(2026, 10, 20) - i * 60_000)
    .toISOString()
    .slice(0, 19)
    .replace('T', ' ');
  const slug = SLUGS[i % SLUGS.length]!;
  const body = `${slug} is limiting interruptible and secondary firm transportation through Station ${i % 300} for gas day 2026-11-21. `;
  return {
    id: 2_000_000 - i,
    pipeline_id: (i % SLUGS.length) + 1,
    pipeline_name: slug,
    pipeline_slug: slug,
    pipeline_url: `https://www.example.com/${slug}`,
    subject: `Capacity Constraint - Station ${i % 300}`,
    identifier: `26-${String(i).padStart(6, '0')}`,
    url: `https://www.example.com/${slug}/notice/${i}`,
    category: i % 3 === 0 ? 'Non-Critical' : 'Critical',
    type: i % 5 === 0 ? 'Maintenance' : 'Capacity Constraint',
    status: ['Initiate', 'SUPERSEDE', '', 'Terminate'][i % 4],
    notice: body.repeat(4),
    html: `<p>${body.repeat(4)}</p>`,
    mobile: `<p>${body}</p>`,
    posted_at: posted,
    effective_at: posted,
    end_at: i % 5 === 0 ? '' : '9000-12-31 00:00:00',
    response_at: i % 7 === 0 ? posted : '',
    service_created_at: posted,
    service_updated_at: posted,
  };
}
