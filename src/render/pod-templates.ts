import { member, type Obj } from './plain-object.ts';
import type { RenderedObject } from './types.ts';

/**
 * The pod templates of an object, with the path to each (`spec.template.`): a workload's, a
 * CronJob's job template's, or a Pod's own spec. The checks of rendered pods (the Pod Security
 * Standards, mooring's volume rules, what a pod may refer to) all read pods through this.
 */
export function podTemplates(o: RenderedObject): { path: string; spec: unknown; annotations: unknown }[] {
  const spec = o.spec as Obj | undefined;
  if (o.kind === 'Pod') return [{ path: '', spec, annotations: o.metadata?.annotations }];
  const templates: { path: string; template: unknown }[] = [];
  if (o.kind === 'CronJob') {
    templates.push({
      path: 'spec.jobTemplate.spec.template.',
      template: member(member(spec?.jobTemplate, 'spec'), 'template'),
    });
  } else if (spec && 'template' in spec) {
    templates.push({ path: 'spec.template.', template: spec.template });
  }
  return templates.map(({ path, template }) => ({
    path,
    spec: member(template, 'spec'),
    annotations: member(member(template, 'metadata'), 'annotations'),
  }));
}
