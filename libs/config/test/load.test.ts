import { describe, expect, it } from 'vitest';
import { ConfigError, env, loadConfig } from '../src/index.ts';

const shape = {
  GATEWAY_PORT: env.port(8080),
  DATABASE_URL: env.url(['postgres', 'postgresql']),
  ENABLED: env.bool(false),
};

describe('loadConfig', () => {
  it('applies defaults and coerces values', () => {
    const cfg = loadConfig(shape, { source: { DATABASE_URL: 'postgres://x@h/db', ENABLED: 'true' }, exitOnError: false });
    expect(cfg).toEqual({ GATEWAY_PORT: 8080, DATABASE_URL: 'postgres://x@h/db', ENABLED: true });
  });

  it('names every bad variable on a line of its own', () => {
    try {
      loadConfig(shape, { source: { GATEWAY_PORT: 'eighty', ENABLED: 'maybe' }, exitOnError: false });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const lines = (err as ConfigError).problems;
      expect(lines).toHaveLength(3);
      expect(lines).toContain('configuration error: DATABASE_URL is required but not set');
      expect(lines.find((l) => l.includes('GATEWAY_PORT'))).toMatch(/port/);
      expect(lines.find((l) => l.includes('ENABLED'))).toMatch(/true or false/);
    }
  });

  it('treats an empty value as unset', () => {
    const cfg = loadConfig(shape, { source: { DATABASE_URL: 'postgres://h/db', GATEWAY_PORT: '' }, exitOnError: false });
    expect(cfg.GATEWAY_PORT).toBe(8080);
  });
});
