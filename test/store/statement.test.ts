import { describe, expect, it } from 'vitest';
import { openDatabase, statement } from '../../src/store/database.js';

describe('statement', () => {
  it('prepares a statement once per connection and keeps it', () => {
    const a = openDatabase(':memory:');
    const b = openDatabase(':memory:');
    try {
      const first = statement(a, 'SELECT count(*) AS n FROM notices');
      expect(statement(a, 'SELECT count(*) AS n FROM notices')).toBe(first);
      expect(statement(b, 'SELECT count(*) AS n FROM notices')).not.toBe(first);
      expect(statement(a, 'SELECT count(*) AS n FROM pipelines')).not.toBe(first);
      expect(first.get()).toEqual({ n: 0 });
    } finally {
      a.close();
      b.close();
    }
  });
});
