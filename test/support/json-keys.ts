/**
 * The keys a JSON object text repeats at its top level. JSON.parse keeps the last of repeated keys
 * silently, and pino writes a child's bindings and a call's object side by side, so a key set in
 * both appears twice in the line: this reads the text itself.
 */
export function repeatedTopLevelKeys(text: string): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (seen.has(key)) repeated.push(key);
        seen.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === '{' || c === '[') {
      depth += 1;
      if (depth === 1) expectKey = true;
    } else if (c === '}' || c === ']') depth -= 1;
    else if (c === ',' && depth === 1) expectKey = true;
  }
  return repeated;
}
