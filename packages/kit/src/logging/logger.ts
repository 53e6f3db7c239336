import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export interface LoggerSettings {
  name: string;
  level?: string;
  /** Pretty lines for a person at a terminal; JSON otherwise. */
  pretty?: boolean;
  /** Where JSON lines go (default stdout); tests pass a stream to read them back. */
  destination?: pino.DestinationStream;
}

/** The one way a process builds its root logger: JSON by default, pretty in a terminal. */
export function createLogger({ name, level = process.env.LOG_LEVEL ?? 'info', pretty, destination }: LoggerSettings): Logger {
  const wantPretty = pretty ?? (process.stdout.isTTY === true && process.env.LOG_FORMAT !== 'json');
  const options: LoggerOptions = {
    name,
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', '*.token', '*.api_key', '*.key'], censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  if (wantPretty) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, singleLine: true } } });
  }
  return pino(options);
}

/** A logger that writes nothing, for unit tests and libraries used without one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
