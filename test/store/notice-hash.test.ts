/**
 * The content hash that tells one version of a notice from another. Every stored notice
 * keeps the hash it was stored with, and the next sight of it is compared with that: a
 * hash computed differently would make every stored notice look changed, and every rule
 * with `on: [updated]` fire on all of them. So its values are pinned here, for notices
 * written out in full.
 */
import { describe, expect, it } from 'vitest';
import { noticeHash } from '../../src/store/notices.js';
import type { Notice } from '../../src/upstream/schemas.js';

const base: Notice = {
  id: 101,
  pipeline_id: 3,
  pipeline_name: 'Transco',
  pipeline_slug: 'transco',
  pipeline_url: 'https://www.example.com/transco',
  subject: 'Capacity Constraint - Station 165',
  identifier: '26-0412',
  url: 'https://www.example.com/transco/notice/101',
  category: 'Critical',
  type: 'Capacity Constraint',
  status: 'Initiate',
  notice: 'Transco is limiting interruptible transportation through Station 165.',
  html: '<p>Transco is limiting interruptible transportation through Station 165.</p>',
  mobile: '',
  posted_at: '2026-11-20T14:00:00Z',
  effective_at: '2026-11-21T14:00:00Z',
  end_at: null,
  response_at: null,
  service_created_at: '2026-11-20T14:03:00Z',
  service_updated_at: '2026-11-20T14:03:00Z',
};

describe('noticeHash', () => {
  it('keeps the values stored notices were hashed with', () => {
    expect(noticeHash(base)).toBe('efdf89e84f103f7de1991dc6deb91c6d');
    // Absent values and empty ones differ.
    expect(noticeHash({ ...base, effective_at: null, status: '' })).toBe(
      'ebe01426c6ceacaaa56ed54b99fe84b3',
    );
    // Text outside ASCII, and the separator characters inside a field.
    expect(noticeHash({ ...base, subject: 'Höchst — 東京 😀', notice: 'a\u0001b\u0000c' })).toBe(
      '2671799d06cccbf9a8a403ddaf5dfa9b',
    );
    // Unpaired surrogates, as a broken upstream text might carry.
    expect(noticeHash({ ...base, subject: 'lone \ud800 high', notice: 'end \udfff' })).toBe(
      'ec1378a1ecd84ecefb1ae5edca8cf277',
    );
  });

  it('tells apart a value moved from one field to the next', () => {
    expect(noticeHash({ ...base, category: 'Critical', type: '' })).not.toBe(
      noticeHash({ ...base, category: '', type: 'Critical' }),
    );
  });
});
