export interface TemporaryPostgres {
  host: string;
  port: number;
  user: string;
  database: string;
  url: string;
  stop(): Promise<void>;
  restart(): Promise<void>;
  halt(): Promise<void>;
  resume(): Promise<void>;
}

export function startPostgres(options?: { port?: number; settings?: Record<string, string> }): Promise<TemporaryPostgres>;
