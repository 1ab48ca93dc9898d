function pgCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

export const isUniqueViolation = (err: unknown, constraint?: string) =>
  pgCode(err) === '23505' && (constraint === undefined || (err as { constraint?: string }).constraint === constraint);

export const isForeignKeyViolation = (err: unknown) => pgCode(err) === '23503';
