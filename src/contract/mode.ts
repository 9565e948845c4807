import { z } from 'zod';

/**
 * One definition, two forms. `strict` validates what the reference server accepts: documented
 * fields only, documented enum values only. `tolerant` parses what the client receives: extra
 * fields are kept, and an enum value the document does not list is kept (then flagged as
 * unsupported by `unsupported.ts`) instead of failing the record.
 */
export type Mode = 'strict' | 'tolerant';

export interface Builders {
  mode: Mode;
  /** An object with documented members: closed in strict mode, open (extras kept) in tolerant. */
  obj<S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$strict> | z.ZodObject<S, z.core.$loose>;
  /** An enum: exact in strict mode; in tolerant mode any other string is kept as an unknown value. */
  en<const T extends readonly [string, ...string[]]>(
    values: T,
  ): z.ZodEnum<{ [K in T[number]]: K }> | z.ZodUnion<[z.ZodEnum<{ [K in T[number]]: K }>, UnknownValue]>;
  /** A date-time: ISO 8601 with offset in strict mode; any string in tolerant mode. */
  dateTime(): z.ZodString | z.iso.ZodISODateTime;
  /** A UUID: checked in strict mode; any string in tolerant mode. */
  uuid(): z.ZodString | z.ZodUUID;
}

/** A string the document does not list; branded so unions with the known values stay visible. */
export type UnknownValue = z.core.$ZodBranded<z.ZodString, 'UnknownValue'>;

export function builders(mode: Mode): Builders {
  const strict = mode === 'strict';
  return {
    mode,
    obj: (shape) => (strict ? z.strictObject(shape) : z.looseObject(shape)),
    en: (values) => (strict ? z.enum(values) : z.union([z.enum(values), z.string().brand('UnknownValue')])),
    dateTime: () => (strict ? z.iso.datetime({ offset: true }) : z.string()),
    uuid: () => (strict ? z.uuid() : z.string()),
  };
}
