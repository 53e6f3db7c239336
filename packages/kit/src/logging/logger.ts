import pino, { type Logger, type LoggerOptions } from 'pino';
import { currentRequestId } from '../context/request-context';

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
    mixin: requestIdMixin,
  };
  if (destination) return pino(options, destination);
  if (wantPretty) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, singleLine: true } } });
  }
  return pino(options);
}

const chindings = pino.symbols.chindingsSym as unknown as string;

/**
 * Puts the current request id on every line written inside a request's async context, unless
 * the logger is a child that already carries it (pino would otherwise repeat the key).
 */
function requestIdMixin(_merge: object, _level: number, logger: Logger): object {
  const requestId = currentRequestId();
  if (!requestId) return {};
  const bound = (logger as unknown as Record<string, string | undefined>)[chindings];
  return bound?.includes('"requestId":') ? {} : { requestId };
}

/** A logger that writes nothing, for unit tests and libraries used without one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
