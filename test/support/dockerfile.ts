/**
 * The sources of every COPY (and ADD) of a Dockerfile that takes files from the build context:
 * shell form or JSON form, flags left out, those from another stage (`--from`) and here-documents
 * skipped.
 */
export const copiedSources = (dockerfile: string): string[] => {
  const sources: string[] = [];
  const lines = dockerfile.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  let heredocEnd: string | null = null;
  for (const line of lines) {
    if (heredocEnd !== null) {
      if (line.trim() === heredocEnd) heredocEnd = null;
      continue;
    }
    const heredoc = /<<-?'?"?([A-Za-z_][A-Za-z0-9_]*)/.exec(line);
    if (heredoc?.[1]) heredocEnd = heredoc[1];
    const instruction = /^\s*(COPY|ADD)\s+(.*)$/i.exec(line);
    if (!instruction?.[2]) continue;
    let rest = instruction[2].trim();
    const flags: string[] = [];
    while (rest.startsWith('--')) {
      const [flag = '', ...others] = rest.split(/\s+/);
      flags.push(flag);
      rest = others.join(' ');
    }
    if (flags.some((flag) => /^--from=/i.test(flag))) continue;
    const args = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
    // A here-document (`COPY <<'END' /path`) is written by the Dockerfile, not taken from the context.
    sources.push(...args.slice(0, -1).filter((source) => !source.startsWith('<<')));
  }
  return sources;
};
